import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';

import { ACCESS_RULE, AccessRule } from '@libs/access';

import { EpisodesController } from './episodes.controller';
import { RolloutStartsController } from './rollout-starts.controller';
import { RolloutsController } from './rollouts.controller';

/** Every route of the episode API, with the rule it declares (or undefined: the guard would refuse it). */
const declaredRules = (controller: new (...args: never[]) => object): [string, AccessRule | undefined][] => {
  const prefix = Reflect.getMetadata(PATH_METADATA, controller) as string;
  return Object.getOwnPropertyNames(controller.prototype)
    .map((name) => (controller.prototype as Record<string, unknown>)[name])
    .filter((handler): handler is object => Reflect.hasMetadata(METHOD_METADATA, handler as object))
    .map((handler) => [
      `${RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number]} ${`/${prefix}/${Reflect.getMetadata(PATH_METADATA, handler) as string}`.replace(/\/+$/, '').replace(/\/\/+/g, '/')}`,
      (Reflect.getMetadata(ACCESS_RULE, handler) ?? Reflect.getMetadata(ACCESS_RULE, controller)) as
        AccessRule | undefined,
    ]);
};

describe('access rules of the episode API', () => {
  it('give each control-plane route a permission and each episode route the episode’s own token', () => {
    const rules = Object.fromEntries([...declaredRules(EpisodesController), ...declaredRules(RolloutsController)]);

    expect(rules).toEqual({
      'GET /v1/environments': { kind: 'permission', permission: 'environments:read' },
      'GET /v1/environments/:env/tasks': { kind: 'permission', permission: 'environments:read' },
      'GET /v1/capacity': { kind: 'permission', permission: 'environments:read' },
      'POST /v1/episodes': { kind: 'permission', permission: 'episodes:run' },
      'POST /v1/episodes\\:group': { kind: 'permission', permission: 'episodes:run' },
      'POST /v1/episodes/:id/tool_calls': { kind: 'episode-token' },
      'GET /v1/episodes/:id/tools': { kind: 'episode-token' },
      'GET /v1/episodes/:id': { kind: 'episode-token' },
      'POST /v1/episodes/:id/grade': { kind: 'episode-token' },
      'GET /v1/episodes/:id/trajectory': { kind: 'episode-token' },
      'DELETE /v1/episodes/:id': { kind: 'episode-token' },
      'POST /v1/episodes/:id/ping': { kind: 'episode-token' },
      'GET /v1/rollouts': { kind: 'permission', permission: 'rollouts:read' },
      'GET /v1/rollouts/:id': { kind: 'permission', permission: 'rollouts:read' },
    });
  });

  it('let a key that may run episodes start rollouts on the api app', () => {
    expect(Object.fromEntries(declaredRules(RolloutStartsController))).toEqual({
      'POST /v1/rollouts': { kind: 'permission', permission: 'episodes:run' },
    });
  });
});

import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';

import type { Principal } from './authenticator';
import type { Permission } from './roles';

/**
 * What a route needs, declared on the route (or its controller). The guard refuses a route that declares nothing, so
 * a new endpoint is closed until someone decides who may call it.
 */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'permission'; permission: Permission }
  /** The episode's own token, checked by the episode's registry: no API key, no tenant-wide power. */
  | { kind: 'episode-token' };

export const ACCESS_RULE = 'mirror:access-rule';

export const Public = () => SetMetadata(ACCESS_RULE, { kind: 'public' } satisfies AccessRule);
export const Requires = (permission: Permission) =>
  SetMetadata(ACCESS_RULE, { kind: 'permission', permission } satisfies AccessRule);
export const EpisodeTokenAuth = () => SetMetadata(ACCESS_RULE, { kind: 'episode-token' } satisfies AccessRule);

/** Where the guard leaves the principal on the request. */
export const PRINCIPAL = Symbol('mirror:principal');

export const principalOf = (request: object): Principal => {
  const principal = (request as { [PRINCIPAL]?: Principal })[PRINCIPAL];
  if (!principal) {
    // A route reading a principal it was never given is a wiring mistake, not the caller's.
    throw new Error('no principal on this request: the route is not guarded by a permission');
  }
  return principal;
};

/** The request's principal as a handler parameter: `@CurrentPrincipal() principal: Principal`. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  principalOf(context.switchToHttp().getRequest<object>()),
);

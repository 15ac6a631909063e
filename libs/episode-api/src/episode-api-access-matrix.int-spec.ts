import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Authenticator, parseApiKey, Permission, Role, roles } from '@libs/access';
import { EpisodeHost, startEpisodeHost } from '@libs/episode-host';
import { mountEpisodeProtocols } from '@libs/episode-protocols';
import { ApiKeyRepository, AuditTrailRepository, RolloutRepository } from '@libs/persistence';
import { LiveEpisodeRegistry } from '@libs/live-episodes';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { repositoryRoot } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { testOperatorKey } from '@test/support/operator-key';
import { mayCall } from '@test/support/role-expectations';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { ingestedOnce } from '@test/support/run-cache';

import { episodeApiOf } from './episode-api-app';

/**
 * The authorisation matrix of a keyed episode API (what a deployment serves to trainers, as opposed to `mirror up`'s
 * local user). Real: PostgreSQL, the Temporal dev server, the episode host with the clinic example, the episode API
 * with the protocol adapters mounted as `mirror up` mounts them, keys made as the operator makes them. Mocked:
 * nothing. The server hosts tenant-north's environment; tenant-south has keys of every role and a rollout, and must
 * reach nothing of north's: its environments are none, its starts 404, north's rollout a 404.
 */
const hosted = 'tenant-north';
const tenants = [hosted, 'tenant-south'] as const;
type Tenant = (typeof tenants)[number];
const environment = 'clinic-network';
const task = 'invoice-dispute@3';

interface Row {
  rule: 'public' | Permission;
  /** What an allowed caller of the hosted tenant gets, and one of the other tenant. */
  own: number[];
  foreign: number[];
  call: (url: string, key: string, target: { rolloutId: string }) => Promise<Response>;
}

const get = (url: string, key: string) => fetch(url, { headers: bearer(key) });
const post = (url: string, key: string, body: unknown = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Every route of the app that a key reaches: the episode API's control plane and the adapters' own. */
const matrix: Record<string, Row> = {
  'GET /openapi.json': { rule: 'public', own: [200], foreign: [200], call: (u, k) => get(`${u}/openapi.json`, k) },
  // Open to the guard, closed to API keys: only the operator's key reads the process's counts.
  'GET /metrics': { rule: 'public', own: [401], foreign: [401], call: (u, k) => get(`${u}/metrics`, k) },
  'GET /v1/environments': {
    rule: 'environments:read',
    own: [200],
    foreign: [200],
    call: (u, k) => get(`${u}/v1/environments`, k),
  },
  'GET /v1/environments/:env/tasks': {
    rule: 'environments:read',
    own: [200],
    foreign: [404],
    call: (u, k) => get(`${u}/v1/environments/${environment}/tasks`, k),
  },
  'GET /v1/capacity': {
    rule: 'environments:read',
    own: [200],
    foreign: [200],
    call: (u, k) => get(`${u}/v1/capacity`, k),
  },
  'POST /v1/episodes': {
    rule: 'episodes:run',
    own: [201],
    foreign: [404],
    call: (u, k) => post(`${u}/v1/episodes`, k, { environment, task }),
  },
  'POST /v1/episodes\\:group': {
    rule: 'episodes:run',
    own: [201],
    foreign: [404],
    call: (u, k) => post(`${u}/v1/episodes:group`, k, { environment, task, n: 1 }),
  },
  'GET /v1/rollouts': { rule: 'rollouts:read', own: [200], foreign: [200], call: (u, k) => get(`${u}/v1/rollouts`, k) },
  'GET /v1/rollouts/:id': {
    rule: 'rollouts:read',
    own: [200],
    foreign: [404],
    call: (u, k, target) => get(`${u}/v1/rollouts/${target.rolloutId}`, k),
  },
  'GET /openenv/:env/health': {
    rule: 'environments:read',
    own: [200],
    foreign: [404],
    call: (u, k) => get(`${u}/openenv/${environment}/health`, k),
  },
  'GET /openenv/:env/metadata': {
    rule: 'environments:read',
    own: [200],
    foreign: [404],
    call: (u, k) => get(`${u}/openenv/${environment}/metadata`, k),
  },
  'GET /openenv/:env/schema': {
    rule: 'environments:read',
    own: [200],
    foreign: [404],
    call: (u, k) => get(`${u}/openenv/${environment}/schema`, k),
  },
  'POST /openenv/:env/reset': {
    rule: 'episodes:run',
    own: [200],
    foreign: [404],
    call: (u, k) => post(`${u}/openenv/${environment}/reset`, k, { task }),
  },
  'POST /openenv/:env/mcp': {
    rule: 'episodes:run',
    own: [200],
    foreign: [404],
    call: (u, k) =>
      post(`${u}/openenv/${environment}/mcp`, k, {
        jsonrpc: '2.0',
        id: 1,
        method: 'openenv/session/create',
        params: { task },
      }),
  },
};

/** Routes that take the episode's own token, not a key: checked by `it('…episode routes…')` below. */
const episodeRoutes = [
  'POST /v1/episodes/:id/tool_calls',
  'GET /v1/episodes/:id/tools',
  'GET /v1/episodes/:id',
  'POST /v1/episodes/:id/grade',
  'GET /v1/episodes/:id/trajectory',
  'DELETE /v1/episodes/:id',
  'POST /v1/episodes/:id/ping',
  'ALL /v1/episodes/:id/mcp',
  'POST /openenv/:env/step',
  'GET /openenv/:env/state',
];

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** The routes an Express app serves, routers mounted inside it included. */
const servedRoutes = (stack: Layer[]): string[] =>
  stack.flatMap((layer) => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods);
      return methods.includes('_all')
        ? [`ALL ${layer.route.path}`]
        : methods.map((method) => `${method.toUpperCase()} ${layer.route!.path}`);
    }
    return layer.handle?.stack ? servedRoutes(layer.handle.stack) : [];
  });

describe('authorisation matrix of a keyed episode API', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let host: EpisodeHost;
  let served: { app: Awaited<ReturnType<typeof episodeApiOf>>['app']; registry: LiveEpisodeRegistry };
  let api: string;
  const previousTenant = process.env.MIRROR_TENANT;
  const keys = {} as Record<Tenant, Record<Role, string>>;
  const rollouts = {} as Record<Tenant, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    Object.assign(process.env, {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_INSTANCE_KEY: testInstanceKey,
      MIRROR_OPERATOR_KEY: testOperatorKey,
      MIRROR_TENANT: hosted,
      MIRROR_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-keyed-api-')),
    });
    const folder = path.join(repositoryRoot, 'examples', environment);
    const { model, version } = await ingestedOnce(folder);
    host = await startEpisodeHost([{ id: environment, path: folder, model, version }], { log: () => undefined });
    served = await episodeApiOf(host, [(app, port, admit) => mountEpisodeProtocols(app, port, admit)], false, {
      kind: 'keys',
      authenticator: new Authenticator(new ApiKeyRepository(host.dataSource)),
    });
    await served.app.listen(0, '127.0.0.1');
    api = (await served.app.getUrl()).replace('[::1]', '127.0.0.1');
    for (const tenant of tenants) {
      keys[tenant] = {} as Record<Role, string>;
      for (const role of roles) {
        keys[tenant][role] = (await issueApiKey(host.dataSource, tenant, role)).token;
      }
      rollouts[tenant] = randomUUID();
      await new RolloutRepository(host.dataSource).open(tenant, {
        id: rollouts[tenant],
        // South's own stack: the content hash of north's environment is north's to know.
        stackVersion: tenant === hosted ? version : 'b'.repeat(64),
        bundle: `bundle-of-${tenant}`,
        agent: `agent-of-${tenant}`,
        tasks: [task],
        trials: 1,
        concurrency: 1,
      });
    }
  });

  afterAll(async () => {
    await served?.app.close();
    await served?.registry.close();
    await host?.stop();
    await database?.drop();
    process.env.MIRROR_TENANT = previousTenant;
  });

  it('has a row for every route the app serves', () => {
    const router = (served.app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } }).router;

    expect([...new Set(servedRoutes(router.stack))].sort()).toEqual([...Object.keys(matrix), ...episodeRoutes].sort());
  });

  const cases = Object.keys(matrix).flatMap((route) =>
    tenants.flatMap((tenant) => roles.map((role) => ({ route, tenant, role }))),
  );

  it.each(cases)('$route as $role of $tenant', async ({ route, tenant, role }) => {
    const row = matrix[route];
    const allowed = mayCall(role, row.rule);

    const response = await row.call(api, keys[tenant][role], { rolloutId: rollouts[hosted] });

    const expected = !allowed ? [403] : tenant === hosted ? row.own : row.foreign;
    const text = await response.text();
    expect(`${response.status} ${text.slice(0, 300)}`).toMatch(new RegExp(`^(${expected.join('|')}) `));
    // The other tenant learns nothing of the hosted one (a 404 may repeat the id it was sent): not its environment's
    // version, its rollout, bundle or agent.
    const markers =
      tenant === hosted
        ? []
        : [
            rollouts[hosted],
            `bundle-of-${hosted}`,
            `agent-of-${hosted}`,
            host.environments.get(environment)!.bundle.version,
          ];
    expect(markers.filter((m) => !response.url.includes(m) && text.includes(m))).toEqual([]);
  });

  it("tells another tenant's key nothing of the hosted tenant's live episodes", async () => {
    expect((await post(`${api}/v1/episodes`, keys[hosted].trainer, { environment, task })).status).toBe(201);
    const foreign = tenants.find((t) => t !== hosted)!;

    const own = (await (await get(`${api}/v1/capacity`, keys[hosted].reviewer)).json()) as { live: number };
    const theirs = await (await get(`${api}/v1/capacity`, keys[foreign].reviewer)).json();

    expect(own.live).toBeGreaterThan(0);
    expect(theirs).toEqual({ live: 0, max: 0, available: 0 });
  });

  it('names the key that started an episode, alone or in a group, in the evidence trail', async () => {
    const trail = new AuditTrailRepository(host.dataSource);
    const startOf = async (episodeId: string) => (await trail.forSubject(hosted, 'episode', episodeId))[0];
    const alone = (await (await post(`${api}/v1/episodes`, keys[hosted].trainer, { environment, task })).json()) as {
      episode_id: string;
    };
    const group = (await (
      await post(`${api}/v1/episodes:group`, keys[hosted].admin, { environment, task, n: 2 })
    ).json()) as { episodes: { episode_id: string }[] };

    expect(await startOf(alone.episode_id)).toMatchObject({
      action: 'episode.created',
      actor: `key:${parseApiKey(keys[hosted].trainer)!.id}`,
      actorKind: 'trainer',
    });
    for (const { episode_id } of group.episodes) {
      expect(await startOf(episode_id)).toMatchObject({
        actor: `key:${parseApiKey(keys[hosted].admin)!.id}`,
        actorKind: 'admin',
      });
    }
  });

  it('lets an episode route be opened by that episode’s token only, never by an API key', async () => {
    const started = (await (await post(`${api}/v1/episodes`, keys[hosted].trainer, { environment, task })).json()) as {
      episode_id: string;
      token: string;
    };
    const other = (await (await post(`${api}/v1/episodes`, keys[hosted].trainer, { environment, task })).json()) as {
      token: string;
    };
    const episode = `${api}/v1/episodes/${started.episode_id}`;

    const withKey = await get(`${episode}/tools`, keys[hosted].admin);
    const withOtherToken = await get(`${episode}/tools`, other.token);
    const unknown = await get(`${api}/v1/episodes/${randomUUID()}/tools`, started.token);
    const mcpWithKey = await post(`${episode}/mcp`, keys[hosted].admin, { jsonrpc: '2.0', id: 1, method: 'ping' });
    const own = await get(`${episode}/tools`, started.token);

    expect([withKey.status, withOtherToken.status, unknown.status, mcpWithKey.status, own.status]).toEqual([
      403, 403, 404, 403, 200,
    ]);
  });
});

import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { Permission, Role, roles } from '@libs/access';
import { loadConfig } from '@libs/config';
import {
  createDataSource,
  EpisodeGradeRepository,
  PostgresEpisodeStore,
  RolloutRepository,
  StackRepository,
} from '@libs/persistence';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { minimalSpec } from '@test/support/bundle-fixtures';
import { repositoryRoot } from '@test/support/cli-runner';
import { mayCall } from '@test/support/role-expectations';
import { ingestedOnce } from '@test/support/run-cache';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';

/**
 * The authorisation matrix. Real: the api app as main.ts builds it, PostgreSQL with the migrations, keys made as the
 * operator makes them. Mocked: nothing. Every route the app serves × every role × a resource of the caller's own tenant
 * or of the other tenant → allowed, 403 or 404, and no response ever carries the other tenant's data.
 */
const tenantNames = ['tenant-north', 'tenant-south'] as const;
type TenantName = (typeof tenantNames)[number];

interface TenantData {
  keys: Record<Role, { id: string; token: string }>;
  stackId: string;
  stackName: string;
  /** A stack with a scenario to play, for starting rollouts. */
  playableStackId: string;
  rolloutId: string;
  episodeId: string;
  bundle: string;
  /** Strings only this tenant's data holds: none may appear in an answer to the other tenant. */
  markers: string[];
}

type Owner = 'own' | 'foreign';
type Call = (server: request.SuperTest<request.Test>, target: TenantData) => Promise<request.Response>;

interface MatrixRow {
  /** The permission the route declares (`public`: none); who may hold it is the requirements' table, not the guard's. */
  rule: 'public' | Permission;
  /** `resource`: the path names one thing, and another tenant's thing is a 404. `tenant`: it acts in the caller's. */
  scope: 'resource' | 'tenant';
  ok: number[];
  call: Call;
}

// A stack with scenarios the workers can play, stored in each tenant (under an id of its own there).
const playableBundle = path.join(repositoryRoot, 'examples', 'acme-manufacturing');

const otherTenant = (tenant: TenantName): TenantName => (tenant === tenantNames[0] ? tenantNames[1] : tenantNames[0]);

describe('authorisation matrix of the api app', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let app: INestApplication;
  let server: request.SuperTest<request.Test>;
  const data = {} as Record<TenantName, TenantData>;
  /** Keys made only to be revoked by a DELETE of the matrix, per tenant. */
  const spareKey = async (tenant: TenantName) => (await issueApiKey(dataSource, tenant, 'trainer')).id;

  const matrix: Record<string, MatrixRow> = {
    'GET /healthz': { rule: 'public', scope: 'tenant', ok: [200], call: (s) => s.get('/healthz') },
    'GET /readyz': { rule: 'public', scope: 'tenant', ok: [200], call: (s) => s.get('/readyz') },
    'GET /openapi.json': {
      rule: 'public',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/openapi.json'),
    },
    // Open to the guard, closed to API keys: only the operator's key reads the process's counts.
    'GET /metrics': { rule: 'public', scope: 'tenant', ok: [401], call: (s) => s.get('/metrics') },
    'POST /v1/stacks': {
      rule: 'stacks:ingest',
      scope: 'tenant',
      ok: [200, 201],
      call: (s) => s.post('/v1/stacks').set('content-type', 'application/yaml').send(minimalSpec()),
    },
    'GET /v1/stacks': {
      rule: 'stacks:read',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/v1/stacks'),
    },
    'GET /v1/stacks/:id': {
      rule: 'stacks:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/stacks/${target.stackId}`),
    },
    'GET /v1/rollouts': {
      rule: 'rollouts:read',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/v1/rollouts'),
    },
    'GET /v1/rollouts/:id': {
      rule: 'rollouts:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/rollouts/${target.rolloutId}`),
    },
    // The app has a Temporal but no worker polls its rollout queue: a start the guard lets through is refused (503)
    // before anything is stored. A rollout played to its end: test/e2e/api-rollouts.e2e-spec.ts.
    'POST /v1/rollouts': {
      rule: 'episodes:run',
      scope: 'resource',
      ok: [503],
      call: (s, target) =>
        s.post('/v1/rollouts').send({ stack: target.playableStackId, agent: 'diligent', tasks: ['all'] }),
    },
    'POST /v1/keys': {
      rule: 'keys:manage',
      scope: 'tenant',
      ok: [201],
      call: (s) => s.post('/v1/keys').send({ role: 'reviewer', name: 'made in the matrix' }),
    },
    'GET /v1/keys': {
      rule: 'keys:manage',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/v1/keys'),
    },
    'DELETE /v1/keys/:id': {
      rule: 'keys:manage',
      scope: 'resource',
      ok: [200],
      call: async (s, target) => s.delete(`/v1/keys/${await spareKey(tenantOf(target))}`),
    },
    'GET /v1/audit/verify': {
      rule: 'audit:read',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/v1/audit/verify'),
    },
    // The rollout's opening is in the trail: its bundle is the caller's tenant's, another tenant's is a 404.
    'GET /v1/audit/export': {
      rule: 'audit:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/audit/export?rollout=${target.rolloutId}`),
    },
    'GET /v1/review/session': {
      rule: 'review:read',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/v1/review/session'),
    },
    'GET /v1/review/rollouts': {
      rule: 'review:read',
      scope: 'tenant',
      ok: [200],
      call: (s) => s.get('/v1/review/rollouts'),
    },
    'GET /v1/review/rollouts/:id': {
      rule: 'review:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/review/rollouts/${target.rolloutId}`),
    },
    'GET /v1/review/rollouts/:id/report': {
      rule: 'review:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/review/rollouts/${target.rolloutId}/report?format=html`),
    },
    // The rollout has ended (closed in setup): its own tenant's reviewers sign it off.
    'POST /v1/review/rollouts/:id/sign-offs': {
      rule: 'review:sign-off',
      scope: 'resource',
      ok: [201],
      call: (s, target) =>
        s.post(`/v1/review/rollouts/${target.rolloutId}/sign-offs`).send({ decision: 'approved', comment: 'matrix' }),
    },
    'GET /v1/review/episodes/:id': {
      rule: 'review:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/review/episodes/${target.episodeId}`),
    },
    'GET /v1/review/episodes/:id/report': {
      rule: 'review:read',
      scope: 'resource',
      ok: [200],
      call: (s, target) => s.get(`/v1/review/episodes/${target.episodeId}/report?format=html`),
    },
    // The episode is graded (in setup) with a verdict on `some-rule`: its own tenant's reviewers annotate it.
    'POST /v1/review/episodes/:id/annotations': {
      rule: 'review:annotate',
      scope: 'resource',
      ok: [201],
      call: (s, target) =>
        s
          .post(`/v1/review/episodes/${target.episodeId}/annotations`)
          .send({ rule: 'some-rule', stance: 'agree', comment: 'matrix' }),
    },
  };
  const tenantOf = (target: TenantData): TenantName => tenantNames.find((t) => data[t] === target)!;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    app = await createApiApp(
      loadConfig({
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
        MIRROR_TASK_QUEUE: `matrix-${randomUUID()}`,
      }),
      dataSource,
      false,
    );
    await app.init();
    server = request(app.getHttpServer()) as unknown as request.SuperTest<request.Test>;
    for (const tenant of tenantNames) {
      const keys = {} as TenantData['keys'];
      for (const role of roles) {
        keys[role] = await issueApiKey(dataSource, tenant, role);
      }
      const stackName = `Stack of ${tenant}`;
      const ingested = await server
        .post('/v1/stacks?filename=spec.yaml')
        .set(bearer(keys.engineer.token))
        .set('content-type', 'application/yaml')
        .send(minimalSpec().replace('title: Minimal', `title: ${stackName}`));
      if (ingested.status !== 201) {
        throw new Error(`setup: ingesting ${stackName} answered ${ingested.status} ${ingested.text}`);
      }
      const rolloutId = randomUUID();
      const bundle = `bundle-of-${tenant}`;
      const rollouts = new RolloutRepository(dataSource);
      await rollouts.open(tenant, {
        id: rolloutId,
        stackVersion: ingested.body.stack.version as string,
        bundle,
        agent: `agent-of-${tenant}`,
        tasks: ['task@1'],
        trials: 1,
        concurrency: 1,
      });
      await rollouts.close(tenant, rolloutId, 'completed', null);
      const stackId = ingested.body.stack.id as string;
      const playable = await ingestedOnce(playableBundle);
      const playableStackId = (
        await new StackRepository(dataSource).saveVersion(tenant, playable.version, playable.model)
      ).stackId;
      const episodeId = randomUUID();
      await new PostgresEpisodeStore(dataSource).createEpisode({
        id: episodeId,
        tenantId: tenant,
        stackVersion: ingested.body.stack.version as string,
        seed: 1,
        secret: randomUUID(),
        sizes: { recordsPerResource: 1, childrenPerParent: 1 },
      });
      await new EpisodeGradeRepository(dataSource).saveGrade(tenant, episodeId, 'policies@1', 'grader@1', {
        graderVersion: 'grader@1',
        policies: ['policies@1'],
        status: 'graded',
        reward: 0,
        passed: false,
        breakdown: { outcome: 0, milestones: 0, penalty: 1 },
        violations: { critical: 0, major: 0, minor: 0 },
        verdicts: [
          { rule: 'some-rule', kind: 'state', clause: 'a clause', severity: 'major', status: 'fail', evidence: [] },
        ],
        steps: [],
        infrastructure: [],
      });
      data[tenant] = {
        keys,
        stackId,
        stackName,
        playableStackId,
        rolloutId,
        episodeId,
        bundle,
        markers: [
          tenant,
          stackId,
          stackName,
          playableStackId,
          rolloutId,
          episodeId,
          bundle,
          ...roles.map((r) => keys[r].id),
        ],
      };
    }
  });

  afterAll(async () => {
    await app.close();
    await dataSource.destroy();
    await database.drop();
  });

  it('has one row for every route the app serves, and no row for a route it does not serve', () => {
    const router = (app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } }).router;
    const served = router.stack.flatMap((layer) =>
      layer.route
        ? Object.keys(layer.route.methods)
            .filter((method) => method !== '_all')
            .map((method) => `${method.toUpperCase()} ${layer.route!.path}`)
        : [],
    );

    expect([...new Set(served)].sort()).toEqual(Object.keys(matrix).sort());
  });

  const cases = Object.keys(matrix).flatMap((route) =>
    tenantNames.flatMap((tenant) =>
      roles.flatMap((role) =>
        (['own', 'foreign'] as Owner[])
          .filter((owner) => owner === 'own' || matrix[route].scope === 'resource')
          .map((owner) => ({ route, tenant, role, owner })),
      ),
    ),
  );

  it.each(cases)('$route as $role of $tenant on an $owner resource', async ({ route, tenant, role, owner }) => {
    const row = matrix[route];
    const caller = data[tenant];
    const target = owner === 'own' ? caller : data[otherTenant(tenant)];
    const allowed = mayCall(role, row.rule);

    const response = await row.call(
      {
        get: (path: string) => server.get(path).set(bearer(caller.keys[role].token)),
        post: (path: string) => server.post(path).set(bearer(caller.keys[role].token)),
        delete: (path: string) => server.delete(path).set(bearer(caller.keys[role].token)),
      } as unknown as request.SuperTest<request.Test>,
      target,
    );

    const expected = !allowed ? [403] : owner === 'foreign' ? [404] : row.ok;
    expect(expected).toContain(response.status);
    expect(allowed ? undefined : response.body.message).toBe(
      allowed ? undefined : `role ${role} may not ${row.rule as Permission}`,
    );
    // A 404 may repeat the id the caller sent; anything else of the other tenant's is a leak.
    const sent = (response as unknown as { req: { path: string } }).req.path;
    const text = `${response.text}${JSON.stringify(response.headers)}`;
    for (const marker of data[otherTenant(tenant)].markers.filter((m) => !sent.includes(m))) {
      expect(text).not.toContain(marker);
    }
  });

  it('files what a caller creates under the caller’s tenant, whatever the request says', async () => {
    const caller = data['tenant-north'];
    const key = await server
      .post('/v1/keys?tenant=tenant-south')
      .set(bearer(caller.keys.admin.token))
      .set('X-Mirror-Tenant', 'tenant-south')
      .send({ role: 'trainer' });
    const stack = await server
      .post('/v1/stacks?filename=tenant.yaml')
      .set(bearer(caller.keys.engineer.token))
      .set('X-Mirror-Tenant', 'tenant-south')
      .set('content-type', 'application/yaml')
      .send(minimalSpec().replace('title: Minimal', 'title: Filed north'));

    expect([key.status, key.body.tenantId]).toEqual([201, 'tenant-north']);
    expect(stack.status).toBe(201);
    const rows = await dataSource.query<{ tenant_id: string }[]>('SELECT tenant_id FROM stacks WHERE id = $1', [
      stack.body.stack.id,
    ]);
    expect(rows).toEqual([{ tenant_id: 'tenant-north' }]);
  });

  it('refuses a rollout no worker would play, saying so, and stores nothing of the starts it refused', async () => {
    const caller = data['tenant-north'];

    const response = await server
      .post('/v1/rollouts')
      .set(bearer(caller.keys.trainer.token))
      .send({ stack: caller.playableStackId, agent: 'diligent', tasks: ['all'] });

    expect(response.status).toBe(503);
    expect(response.body.message).toMatch(/^no worker polls matrix-[0-9a-f-]+\.rollouts on /);
    const rows = await dataSource.query<{ id: string }[]>('SELECT id FROM rollouts ORDER BY id');
    expect(rows.map((r) => r.id).sort()).toEqual(tenantNames.map((t) => data[t].rolloutId).sort());
  });

  it('leaves another tenant’s key unrevoked when asked to revoke it', async () => {
    const foreign = data['tenant-south'].keys.trainer;

    const response = await server.delete(`/v1/keys/${foreign.id}`).set(bearer(data['tenant-north'].keys.admin.token));

    expect(response.status).toBe(404);
    await server.get('/v1/stacks').set(bearer(foreign.token)).expect(200);
  });
});

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

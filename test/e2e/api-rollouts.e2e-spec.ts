import { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { processExited, startBuiltApp } from '@test/support/app-process';
import { repositoryRoot } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { testOperatorKey } from '@test/support/operator-key';
import { ingestedOnce } from '@test/support/run-cache';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { loadConfig } from '@libs/config';
import { createDataSource, StackRepository } from '@libs/persistence';
import type { RolloutEpisodeResult, RolloutReport } from '@libs/rollouts';
import { sharedRolloutTaskQueue } from '@libs/workflow-contracts';

// The smallest procurement scenario of the examples, with a built-in agent the workers play.
const bundle = path.join(repositoryRoot, 'examples', 'acme-manufacturing');
const scenarioId = 'single-supplier-negotiation';
const agent = 'diligent';
const tenant = 'trainers';

/**
 * Real: the api app as main.ts builds it (in this process, for its answers), a built gateway and a built worker as
 * their own processes, one PostgreSQL and one Temporal dev server. A trainer's key starts a rollout over HTTP; the
 * workers play it to its grades and the evidence trail names the key as the one who asked.
 */
describe('POST /v1/rollouts on the api app, played by scaled-out workers', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let app: INestApplication;
  let server: request.SuperTest<request.Test>;
  let dataDir: string;
  const apps: ChildProcess[] = [];
  const episodeQueue = `api-rollouts-${randomUUID()}`;
  let trainer: { id: string; token: string };
  let stackId: string;
  let version: string;

  const rolloutIds = async (): Promise<string[]> =>
    (await dataSource.query<{ id: string }[]>('SELECT id FROM rollouts')).map((r) => r.id);

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-api-rollouts-'));
    const address = requireEnvironment('TEMPORAL_ADDRESS');
    app = await createApiApp(
      loadConfig({ DATABASE_URL: database.url, TEMPORAL_ADDRESS: address, MIRROR_TASK_QUEUE: episodeQueue }),
      dataSource,
      false,
    );
    await app.init();
    server = request(app.getHttpServer()) as unknown as request.SuperTest<request.Test>;
    trainer = await issueApiKey(dataSource, tenant, 'trainer');
    // Stored as an engineer's ingest stores it (that route has tests of its own).
    const ingested = await ingestedOnce(bundle);
    version = ingested.version;
    stackId = (await new StackRepository(dataSource).saveVersion(tenant, version, ingested.model)).stackId;
  });

  afterAll(async () => {
    for (const child of apps) {
      child.kill('SIGTERM');
    }
    await Promise.all(apps.map(processExited));
    await app?.close();
    await dataSource?.destroy();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (body: unknown, idempotencyKey?: string) => {
    const call = server.post('/v1/rollouts').set(bearer(trainer.token));
    return (idempotencyKey ? call.set('Idempotency-Key', idempotencyKey) : call).send(body as object);
  };

  it('refuses a bad body with a 400 naming each field, and stores nothing', async () => {
    const cases: [unknown, string][] = [
      [{ stack: stackId, agent, trials: 0 }, '/trials: must be an integer from 1 to 100'],
      [{ stack: stackId, agent, tasks: 'all' }, '/tasks: must be an array of tasks'],
      [{ stack: stackId, agent, tasks: [scenarioId, 'nope@1'] }, '/tasks/1: no scenario "nope"; the stack has'],
      [{ stack: stackId, agent, concurrency: 100, colour: 'red' }, '/concurrency: must be an integer from 1 to 64'],
      [{ stack: stackId, agent, colour: 'red' }, '/colour: unknown field'],
      [{ stack: 'not a stack', agent }, '/stack: must be a stack id (a UUID) or a stack version'],
      [{ stack: version.slice(0, 12), agent: './my-agent.mjs' }, '/agent: the workers play oracle, '],
      [{ agent }, '/stack: must be a string'],
    ];
    for (const [body, message] of cases) {
      const response = await start(body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body.message).toContain(message);
    }
    const notJson = await server
      .post('/v1/rollouts')
      .set(bearer(trainer.token))
      .set('content-type', 'application/json')
      .send('{"stack":');
    expect(notJson.status).toBe(400);
    expect((await start({ stack: randomUUID(), agent })).status).toBe(404);
    expect(await rolloutIds()).toEqual([]);
  });

  it('refuses with 503 while no worker polls the shared queue, storing nothing', async () => {
    const response = await start({ stack: stackId, agent, tasks: [`${scenarioId}@1`] });

    expect(response.status).toBe(503);
    expect(response.body.message).toContain(`no worker polls ${sharedRolloutTaskQueue(episodeQueue)}`);
    expect(response.headers.location).toBeUndefined();
    expect(await rolloutIds()).toEqual([]);
  });

  it('starts a trainer’s rollout on the workers, once however often it is retried, and it ends graded', async () => {
    const shared = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_TENANT: tenant,
      MIRROR_OPERATOR_KEY: testOperatorKey,
      MIRROR_INSTANCE_KEY: testInstanceKey,
      MIRROR_DATA_DIR: dataDir,
    };
    const gateway = await startBuiltApp(
      'gateway',
      { ...shared, GATEWAY_PORT: '0' },
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    apps.push(gateway.child);
    const worker = await startBuiltApp(
      'worker',
      { ...shared, MIRROR_TASK_QUEUE: episodeQueue, MIRROR_GATEWAY_URL: gateway.match[1] },
      /rollout trials through/,
    );
    apps.push(worker.child);
    const body = { stack: version, agent, tasks: [scenarioId], seed: 3, trials: 2, concurrency: 2 };
    const key = `nightly-${randomUUID()}`;

    // The worker says it is ready a moment before Temporal lists it as polling: a client retries such a 503, with the
    // same key, as it would any 503.
    let started = await start(body, key);
    while (started.status === 503 && /^no worker polls /.test(started.body.message as string)) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      started = await start(body, key);
    }
    expect({ status: started.status, text: started.status === 202 ? '' : started.text }).toEqual({
      status: 202,
      text: '',
    });
    const id = started.body.id as string;
    expect(started.headers.location).toBe(`/v1/rollouts/${id}`);
    expect(started.body).toMatchObject({
      status: 'running',
      agent,
      tasks: [`${scenarioId}@3`],
      trials: 2,
      concurrency: 2,
      startedBy: `key:${trainer.id}`,
      stack: { id: stackId, version },
    });

    // The client's retry: the same rollout, not a second one; the same key for another request is refused.
    const retried = await start(body, key);
    expect([retried.status, retried.body.id, retried.headers['idempotent-replayed']]).toEqual([202, id, 'true']);
    expect((await start({ ...body, trials: 1 }, key)).status).toBe(422);
    expect(await rolloutIds()).toEqual([id]);

    // Followed as a trainer follows it: by the Location it was given.
    let rollout: { status: string; report: RolloutReport | null; episodes: RolloutEpisodeResult[] };
    for (;;) {
      const read = await server.get(started.headers.location).set(bearer(trainer.token));
      expect(read.status).toBe(200);
      rollout = read.body;
      if (rollout.status !== 'running') {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    // Why any trial could not be played, rather than only how many.
    expect(rollout.episodes.filter((e) => e.status === 'infrastructure_error').map((e) => e.reason)).toEqual([]);
    expect(rollout.status).toBe('completed');
    expect(rollout.report?.overall).toMatchObject({ episodes: 2, graded: 2, infrastructureErrors: 0 });
    expect(rollout.episodes.map((e) => [e.task, e.trial])).toEqual([
      [`${scenarioId}@3`, 1],
      [`${scenarioId}@3`, 2],
    ]);
    const graded = await dataSource.query<{ episode_id: string }[]>(
      'SELECT DISTINCT episode_id FROM episode_grades WHERE episode_id = ANY($1)',
      [rollout.episodes.map((e) => e.episodeId)],
    );
    expect(graded).toHaveLength(2);

    // The evidence names the key's holder as the one who asked, under the key's tenant.
    const opened = await dataSource.query<{ tenant_id: string; actor: string; actor_kind: string }[]>(
      `SELECT tenant_id, actor, actor_kind FROM audit_entries WHERE action = 'rollout.opened' AND subject_id = $1`,
      [id],
    );
    expect(opened).toEqual([{ tenant_id: tenant, actor: `key:${trainer.id}`, actor_kind: 'trainer' }]);

    // An ended rollout's key still names it: a late retry starts nothing.
    const late = await start(body, key);
    expect([late.status, late.body.id, late.body.status]).toEqual([202, id, 'completed']);
    expect(await rolloutIds()).toEqual([id]);
  });
});

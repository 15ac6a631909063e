import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';

import { repositoryRoot } from '@test/support/cli-runner';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { testWorkflowBundle } from '@test/support/run-cache';
import { locateTemporalCli, silentLog } from '@libs/embedded-services';
import { RolloutRepository } from '@libs/persistence';
import type { RolloutPlan } from '@libs/rollouts';
import { ingestStack, StackModel } from '@libs/stack-ingestion';
import { RolloutInput, RolloutProgress, rolloutProgressQuery, rolloutWorkflowId } from '@libs/workflow-contracts';
import { EpisodeEnvironment, withEpisodeEnvironment } from '@cli/episode-environment';
import { rolloutAgents, trialPlayer } from '@cli/rollout-trials';

import { createRolloutWorker } from './rollout-worker';
import { rolloutWorkflow } from './workflows';

/**
 * Real: the CLI's episode environment (PostgreSQL with the committed migrations, the twins behind the gateway, the
 * Temporal dev server and the episode worker), the rollout workflow and its activities on two workers in turn, the
 * IT-desk example's oracle plans, episodes played and graded. Mocked: nothing.
 */
describe(rolloutWorkflow.name, () => {
  const saved = { ...process.env };
  const bundle = path.join(repositoryRoot, 'examples', 'halden-it');
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let model: StackModel;
  let version: string;
  let environment: EpisodeEnvironment;
  let release: () => void;
  let closed: Promise<void>;

  beforeAll(async () => {
    database = await createTestDatabase();
    process.env.DATABASE_URL = database.url;
    process.env.MIRROR_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-rollout-'));
    ({ model, version } = await ingestStack({ kind: 'path', path: bundle }));
    // The environment stays up for every test: it is what a `mirror rollout` command holds while it runs.
    environment = await new Promise<EpisodeEnvironment>((resolve, reject) => {
      closed = withEpisodeEnvironment({ path: bundle, model, version }, silentLog, (opened) => {
        resolve(opened);
        return new Promise<void>((done) => (release = done));
      }).catch(reject);
    });
  });

  afterAll(async () => {
    release?.();
    await closed;
    process.env = saved;
    await database.drop();
  });

  const rolloutWorkers = () => {
    const { dataSource, connection, namespace, tenantId } = environment.services;
    const store = new RolloutRepository(dataSource);
    const taskQueue = `rollouts-${randomUUID()}`;
    const startWorker = () =>
      createRolloutWorker({
        connection,
        namespace,
        taskQueue,
        tenantId,
        stackVersion: version,
        store,
        play: trialPlayer(environment, model, rolloutAgents()),
        ...testWorkflowBundle(),
      });
    return { store, taskQueue, startWorker, tenantId, dataSource, temporal: environment.services.temporal };
  };

  it('survives its worker stopping mid-rollout: another worker finishes it, every trial played and recorded once', async () => {
    const { store, taskQueue, startWorker, tenantId, dataSource, temporal } = rolloutWorkers();
    const plan: RolloutPlan = {
      id: randomUUID(),
      stackVersion: version,
      bundle: 'halden-it',
      agent: 'oracle',
      tasks: ['folder-access@1', 'folder-access@2', 'outside-share-request@1'],
      trials: 2,
      concurrency: 2,
    };
    // Four trials per run: the rollout also hands over to a new run (continue-as-new) with what it has done.
    const input: RolloutInput = { ...plan, tenantId, handOverAfter: 4 };

    const first = await startWorker();
    const firstRunning = first.run();
    const handle = await temporal.workflow.start(rolloutWorkflow, {
      args: [input],
      taskQueue,
      workflowId: rolloutWorkflowId(plan.id),
    });
    let progress: RolloutProgress | undefined;
    while (!progress || progress.done < 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      progress = await handle.query<RolloutProgress>(rolloutProgressQuery);
    }
    expect(progress).toMatchObject({ total: 6, finished: false });
    first.shutdown();
    await firstRunning;
    // The first worker recorded what it played, in flight included, and left the rest.
    const recordedBefore = await store.episodes(tenantId, plan.id);
    expect(recordedBefore.length).toBeGreaterThanOrEqual(1);
    expect(recordedBefore.length).toBeLessThan(6);

    const second = await startWorker();
    const report = await second.runUntil(handle.result());

    expect(report.overall).toMatchObject({ tasks: 3, episodes: 6, graded: 6, passed: 6, infrastructureErrors: 0 });
    expect(report.overall.passHat['2']).toBe(1);
    const trials = await store.episodes(tenantId, plan.id);
    expect(trials.map((t) => `${t.task}#${t.trial}`)).toEqual([
      'folder-access@1#1',
      'folder-access@1#2',
      'folder-access@2#1',
      'folder-access@2#2',
      'outside-share-request@1#1',
      'outside-share-request@1#2',
    ]);
    // Once: six distinct episodes, and no episode played beyond them (a replayed trial would have stored a run).
    expect(new Set(trials.map((t) => t.episodeId)).size).toBe(6);
    expect(trials.every((t) => t.episodeId !== null && t.status === 'succeeded')).toBe(true);
    const [{ count }] = await dataSource.query<{ count: string }[]>('SELECT count(*) AS count FROM episode_runs');
    expect(Number(count)).toBe(6);
    // Earlier trials kept their first record: what the first worker stored is unchanged.
    expect(trials.filter((t) => recordedBefore.some((r) => r.episodeId === t.episodeId))).toEqual(recordedBefore);

    const stored = await store.find(tenantId, plan.id);
    expect(stored).toMatchObject({ status: 'completed', agent: 'oracle', trials: 2, tasks: plan.tasks });
    // The workflow answers with the tallies; the report with every task is the stored one.
    expect(report).toEqual({ trials: 2, overall: stored?.report?.overall });
    expect(stored?.report?.tasks.map((t) => t.task)).toEqual(plan.tasks);
    // A continued run carries the trials played as ranges of places, never their results: its input stays small
    // however many trials the rollout has.
    const lastRun = await temporal.workflow.getHandle(rolloutWorkflowId(plan.id)).fetchHistory();
    const started = lastRun.events?.[0]?.workflowExecutionStartedEventAttributes;
    const continued = defaultPayloadConverter.fromPayload<RolloutInput>(started!.input!.payloads![0]);
    expect(continued.done).toBeUndefined();
    expect(continued.played?.ranges.length).toBeGreaterThan(0);
    expect(continued.played?.passed).toBe(continued.played?.ranges.reduce((n, [a, b]) => n + b - a + 1, 0));
    let runs = 0;
    for await (const run of temporal.workflow.list({ query: `WorkflowId = '${rolloutWorkflowId(plan.id)}'` })) {
      runs += run.workflowId === rolloutWorkflowId(plan.id) ? 1 : 0;
    }
    expect(runs).toBeGreaterThan(1);
    if (process.env.MIRROR_RECORD_ROLLOUT_HISTORY) {
      // Refreshes the history the replay test holds today's rollout workflow against: the first run, restart included.
      const cli = await locateTemporalCli({
        searchPath: process.env.PATH,
        cacheDir: path.join(os.homedir(), '.cache', 'mirror'),
        log: silentLog,
      });
      const json = execFileSync(cli.executable as string, [
        'workflow',
        'show',
        '-w',
        rolloutWorkflowId(plan.id),
        '-r',
        handle.firstExecutionRunId,
        '--address',
        requireEnvironment('TEMPORAL_ADDRESS'),
        '-o',
        'json',
      ]);
      fs.writeFileSync(process.env.MIRROR_RECORD_ROLLOUT_HISTORY, json);
    }
  });

  it('ends cancelled when cancelled mid-rollout, stored as cancelled without a report', async () => {
    const { store, taskQueue, startWorker, tenantId, temporal } = rolloutWorkers();
    const worker = await startWorker();
    const plan: RolloutPlan = {
      id: randomUUID(),
      stackVersion: version,
      bundle: 'halden-it',
      agent: 'idle',
      tasks: ['folder-access@4', 'folder-access@5'],
      trials: 3,
      concurrency: 1,
    };
    await worker.runUntil(async () => {
      const handle = await temporal.workflow.start(rolloutWorkflow, {
        args: [{ ...plan, tenantId }],
        taskQueue,
        workflowId: rolloutWorkflowId(plan.id),
      });
      while ((await handle.query<RolloutProgress>(rolloutProgressQuery)).done < 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await handle.cancel();
      const failure: unknown = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    });
    await expect(store.find(tenantId, plan.id)).resolves.toMatchObject({ status: 'cancelled', report: null });
    expect((await store.episodes(tenantId, plan.id)).length).toBeLessThan(6);
  });
});

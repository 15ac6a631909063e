import { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { DataSource } from 'typeorm';

import { processExited, startBuiltApp } from '@test/support/app-process';
import { repositoryRoot, runCli } from '@test/support/cli-runner';
import { startEpisodeHarness } from '@test/support/episode-harness';
import { testInstanceKey } from '@test/support/instance-key';
import { testOperatorKey } from '@test/support/operator-key';
import { ingestedOnce } from '@test/support/run-cache';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { loadConfig } from '@libs/config';
import { episodePlayer, trialResultOf } from '@libs/episode-host';
import { workflowIdOf } from '@libs/episode-runs';
import { createDataSource } from '@libs/persistence';
import { referenceAgents, ReferenceAgent } from '@libs/reference-agents';
import type { RolloutReport } from '@libs/rollouts';
import {
  EpisodeOutcome,
  RolloutProgress,
  rolloutProgressQuery,
  rolloutWorkflowId,
  sharedRolloutTaskQueue,
} from '@libs/workflow-contracts';

// The smallest procurement scenario of the examples, with the agent every benchmark uses.
const bundle = path.join(repositoryRoot, 'examples', 'acme-manufacturing');
const scenarioId = 'single-supplier-negotiation';
const agent = 'diligent';
const episodes = 100;
const tenant = 'test';

interface RecordedTrial {
  task: string;
  episode_id: string | null;
  status: string;
  passed: boolean | null;
  reward: number | null;
  violations: string[];
}

/** What must be the same with and without crashes: everything graded about a trial, not the episode's id. */
const graded = (trial: { status: string; passed: boolean | null; reward: number | null; violations: string[] }) => ({
  status: trial.status,
  passed: trial.passed,
  reward: trial.reward,
  violations: [...trial.violations].sort(),
});

/**
 * Real: two built gateway processes and two built worker processes sharing one PostgreSQL and one Temporal dev
 * server, the twins reached only through the gateways. One gateway and one worker are killed with SIGKILL in the
 * middle of a rollout of 100 episodes: every trial must still end graded, once, with the grade an undisturbed run
 * of the same seed gets (played in a single process with its own in-process gateway and worker).
 */
describe('a scaled-out rollout (2 gateways, 2 workers) losing one of each', () => {
  it('grades every trial once, as an undisturbed run of the same seeds does', async () => {
    const database = await createTestDatabase();
    const dataSource: DataSource = createDataSource(database.url);
    await dataSource.initialize();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-scale-out-'));
    const address = requireEnvironment('TEMPORAL_ADDRESS');
    const connection = await Connection.connect({ address });
    const temporal = new Client({ connection });
    const apps: ChildProcess[] = [];
    const episodeQueue = `scale-out-${randomUUID()}`;
    const shared = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: address,
      MIRROR_TENANT: tenant,
      MIRROR_OPERATOR_KEY: testOperatorKey,
      MIRROR_INSTANCE_KEY: testInstanceKey,
      MIRROR_DATA_DIR: dataDir,
    };
    try {
      const { model, version } = await ingestedOnce(bundle);
      const rollout = (extra: string[]) =>
        runCli(['rollout', bundle, '--on-workers', '--agent', agent, '--tasks', scenarioId, ...extra], {
          ...shared,
          MIRROR_TASK_QUEUE: episodeQueue,
        });

      // Handed to workers before there are any: refused at once, naming the queue, rather than left waiting.
      const early = await rollout(['--seeds', '1']);
      expect(early.code).toBe(2);
      expect(early.stderr).toContain(`no worker polls ${sharedRolloutTaskQueue(episodeQueue)}`);

      const gateways = await Promise.all(
        [0, 1].map(() =>
          startBuiltApp('gateway', { ...shared, GATEWAY_PORT: '0' }, /listening on (http:\/\/127\.0\.0\.1:\d+)/),
        ),
      );
      apps.push(...gateways.map((g) => g.child));
      const urls = gateways.map((g) => g.match[1]);
      const workers = await Promise.all(
        [0, 1].map(() =>
          startBuiltApp(
            'worker',
            { ...shared, MIRROR_TASK_QUEUE: episodeQueue, MIRROR_GATEWAY_URL: urls.join(',') },
            /rollout trials through/,
          ),
        ),
      );
      apps.push(...workers.map((w) => w.child));

      // `mirror rollout --on-workers`: the command stores the stack and starts the rollout on the workers' queue.
      const command = rollout(['--seeds', String(episodes), '--seed', '1', '--concurrency', '8', '--json']);
      let rolloutId: string | undefined;
      while (!rolloutId) {
        const rows = await dataSource.query<{ id: string }[]>('SELECT id FROM rollouts');
        rolloutId = rows[0]?.id;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const handle = temporal.workflow.getHandle(rolloutWorkflowId(rolloutId));

      // Mid-way: a third of the trials recorded, eight in flight.
      for (;;) {
        const progress = await handle.query<RolloutProgress>(rolloutProgressQuery).catch(() => undefined);
        if (progress && progress.done >= episodes / 3) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      gateways[0].child.kill('SIGKILL');
      workers[0].child.kill('SIGKILL');
      await Promise.all([processExited(gateways[0].child), processExited(workers[0].child)]);
      const killedAt = Date.now();

      const finished = await command;
      // Its stderr shown only when it failed.
      expect({ code: finished.code, stderr: finished.code === 0 ? '' : finished.stderr }).toEqual({
        code: 0,
        stderr: '',
      });
      const {
        report,
        rollout: plan,
        episodes: trialResults,
      } = JSON.parse(finished.stdout) as {
        report: RolloutReport;
        rollout: { id: string; status: string; tasks: string[] };
        episodes: { task: string; status: string; reason: string }[];
      };
      // Why any trial could not be played, rather than only how many.
      expect(
        trialResults.filter((e) => e.status === 'infrastructure_error').map((e) => `${e.task}: ${e.reason}`),
      ).toEqual([]);
      expect(plan).toMatchObject({ id: rolloutId, status: 'completed' });
      expect(plan.tasks).toHaveLength(episodes);
      expect(report.overall.episodes).toBe(episodes);
      expect(report.overall.infrastructureErrors).toBe(0);
      expect(report.overall.graded).toBe(episodes);

      // Every task recorded once, each with an episode of its own that was graded and stored.
      const trials = await dataSource.query<RecordedTrial[]>(
        'SELECT task, episode_id, status, passed, reward, violations FROM rollout_episodes WHERE rollout_id = $1',
        [plan.id],
      );
      expect(trials.map((t) => t.task).sort()).toEqual([...plan.tasks].sort());
      expect(trials.every((t) => t.episode_id !== null && t.status !== 'infrastructure_error')).toBe(true);
      const recorded = new Set(trials.map((t) => t.episode_id!));
      expect(recorded.size).toBe(episodes);
      const gradedEpisodes = await dataSource.query<{ episode_id: string }[]>(
        'SELECT DISTINCT episode_id FROM episode_grades WHERE episode_id = ANY($1)',
        [[...recorded]],
      );
      expect(gradedEpisodes).toHaveLength(episodes);

      // The kills interrupted some trials: their first episodes were left (never recorded) and played again.
      const played = await dataSource.query<{ id: string; scenario_seed: string }[]>(
        'SELECT id, scenario_seed FROM episodes WHERE scenario_id = $1',
        [scenarioId],
      );
      const interrupted = [
        ...new Set(played.filter((e) => !recorded.has(e.id)).map((e) => Number(e.scenario_seed))),
      ].sort((a, b) => a - b);
      expect(interrupted.length).toBeGreaterThan(0);

      // None of those was left open to its wall-clock limit: those whose agent died with the killed worker ended when
      // its lease ran out, the others when their trial was played again (or as they were, if only the recording was lost).
      const leftOver = played.filter((e) => !recorded.has(e.id));
      const ends = await Promise.all(
        leftOver.map(async (episode) => {
          const workflow = temporal.workflow.getHandle(workflowIdOf(episode.id));
          const outcome = (await workflow.result()) as EpisodeOutcome;
          return { outcome, closedAt: (await workflow.describe()).closeTime!.getTime() };
        }),
      );
      expect(
        ends.some((e) => e.outcome.reason.startsWith('the process playing the agent stopped renewing its lease')),
      ).toBe(true);
      const wallClockMs =
        model.scenarios.find((s) => s.scenario.id === scenarioId)!.scenario.horizon.wall_clock_minutes * 60_000;
      const lastClosed = Math.max(...ends.map((e) => e.closedAt)) - killedAt;
      process.stderr.write(
        `scale-out: ${leftOver.length} episodes left by the kills, all closed ${Math.round(lastClosed / 1000)} s after them\n`,
      );
      expect(lastClosed).toBeLessThan(wallClockMs / 2);

      // The undisturbed run: those seeds and a few others, one process, its own gateway and worker in process.
      const reference = await startEpisodeHarness({ worker: true, bundle });
      try {
        const { play } = episodePlayer({
          config: { ...loadConfig(), MIRROR_TENANT: tenant, MIRROR_DATA_DIR: dataDir },
          dataSource: reference.dataSource,
          signals: reference.signals,
          log: { log: () => undefined },
          transcripts: dataDir,
        });
        const scenario = model.scenarios.find((s) => s.scenario.id === scenarioId)!;
        const seeds = [...new Set([...interrupted, 1, 2, 3])];
        // A few at once: one episode mostly waits on its workflow's round trips, so they overlap even on two cores.
        const pending = [...seeds];
        const undisturbed = new Map<number, ReturnType<typeof trialResultOf>>();
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (let seed = pending.shift(); seed !== undefined; seed = pending.shift()) {
              undisturbed.set(
                seed,
                trialResultOf(
                  await play(
                    { bundle: { model, version }, context: reference.context },
                    scenario,
                    seed,
                    referenceAgents.get(agent) as ReferenceAgent,
                  ),
                ),
              );
            }
          }),
        );
        for (const seed of seeds) {
          const disturbed = trials.find((t) => t.task === `${scenarioId}@${seed}`)!;
          expect({ seed, ...graded(disturbed) }).toEqual({ seed, ...graded(undisturbed.get(seed)!) });
        }
      } finally {
        await reference.stop();
      }
    } finally {
      for (const child of apps) {
        child.kill('SIGTERM');
      }
      await Promise.all(apps.map(processExited));
      await connection.close();
      await dataSource.destroy();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 3_600_000);
});

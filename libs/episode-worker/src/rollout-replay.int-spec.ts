import * as fs from 'node:fs';
import * as path from 'node:path';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { replayHistory } from './worker-factory';

/**
 * Real: today's workflow code replayed against recorded rollouts (the first run of the restart test: its worker
 * stopped mid-rollout, another took over, then the hand-over to a new run; recorded with
 * MIRROR_RECORD_ROLLOUT_HISTORY by rollout.int-spec.ts). A change that would break rollouts in flight fails here.
 * Each file is a version of the workflow that ran: `rollout-restart` carried every result into the next run,
 * `rollout-results-in-store` carries the places played.
 */
const histories = path.join(__dirname, 'workflows', '__histories__');
const recorded = fs.readdirSync(histories).filter((file) => /^rollout-.*\.json$/.test(file));
describe('recorded rollout histories', () => {
  beforeAll(() => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  });

  it('are there, of each version', () => {
    expect(recorded).toEqual(expect.arrayContaining(['rollout-restart.json', 'rollout-results-in-store.json']));
  });

  it.each(recorded)('%s replays with the current rollout workflow without nondeterminism', async (file) => {
    const history: unknown = JSON.parse(fs.readFileSync(path.join(histories, file), 'utf8'));
    await expect(replayHistory(history, file.replace(/\.json$/, ''))).resolves.toBeUndefined();
  });
});

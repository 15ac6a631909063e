import * as fs from 'node:fs';
import * as path from 'node:path';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { replayHistory } from './worker-factory';

/**
 * Real: today's workflow code replayed against a recorded rollout (the first run of the restart test: its worker
 * stopped mid-rollout, another took over, then the hand-over to a new run; recorded with
 * MIRROR_RECORD_ROLLOUT_HISTORY by rollout.int-spec.ts). A change that would break rollouts in flight fails here.
 */
describe('recorded rollout histories', () => {
  beforeAll(() => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  });

  it('replay with the current rollout workflow without nondeterminism', async () => {
    const history: unknown = JSON.parse(
      fs.readFileSync(path.join(__dirname, 'workflows', '__histories__', 'rollout-restart.json'), 'utf8'),
    );
    await expect(replayHistory(history, 'rollout-restart')).resolves.toBeUndefined();
  });
});

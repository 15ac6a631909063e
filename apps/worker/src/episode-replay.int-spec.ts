import * as fs from 'node:fs';
import * as path from 'node:path';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { replayHistory } from '@libs/episode-worker';

/**
 * Real: today's workflow code replayed against a recorded episode (the example's single-supplier negotiation with
 * the diligent agent, recorded with MIRROR_RECORD_HISTORY by the episode-runs integration test). A change that
 * would break episodes in flight fails here as a nondeterminism error.
 */
describe('recorded episode histories', () => {
  beforeAll(() => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  });

  it('replay with the current episode workflow without nondeterminism', async () => {
    const history: unknown = JSON.parse(
      fs.readFileSync(path.join(__dirname, 'histories', 'single-supplier-negotiation.json'), 'utf8'),
    );
    await expect(replayHistory(history, 'single-supplier-negotiation')).resolves.toBeUndefined();
  });
});

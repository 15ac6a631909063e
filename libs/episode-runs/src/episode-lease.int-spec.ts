import { startEpisodeHarness } from '@test/support/episode-harness';
import type { EpisodeOutcome } from '@libs/workflow-contracts';

import { startEpisode } from './episode-runner';

/**
 * Real: PostgreSQL, the Temporal dev server, the twins behind an HTTP gateway and a worker. The process playing an
 * episode's agent keeps a lease on it: alive (renewing), the episode stays open past the lease; gone (its renewals
 * stopped, as when the process is killed), the episode is judged as cancelled and its twins closed within a lease,
 * not left open to the wall-clock limit.
 */
describe('the lease of the process playing an episode', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({ worker: true });
  });

  afterAll(async () => {
    await harness?.stop();
  });

  const leaseSeconds = 3;
  const scenario = () => harness.scenario('single-supplier-negotiation');

  it('keeps a renewed episode open past its lease, and ends an abandoned one within about a lease', async () => {
    const kept = await startEpisode(harness.context, harness.signals, scenario(), 7, { leaseSeconds });
    const abandoned = await startEpisode(harness.context, harness.signals, scenario(), 8, { leaseSeconds });
    // The second player "dies": nothing renews its lease any more (what a SIGKILL leaves).
    harness.signals.forget(abandoned.episode.id);
    const stoppedAt = Date.now();
    const outcome = (await abandoned.handle.result()) as EpisodeOutcome;
    const tookMs = Date.now() - stoppedAt;
    expect(outcome.status).toBe('cancelled');
    expect(outcome.reason).toMatch(/^the process playing the agent stopped renewing its lease of 3 s; /);
    // Ended by its lease (plus a loaded machine's delays), far before the scenario's wall-clock limit.
    expect(abandoned.instance.horizon.wallClockMinutes * 60_000).toBeGreaterThan(60_000);
    expect(tookMs).toBeLessThan(60_000);
    // Its twins were closed with it: the log ends with the close (later writes are refused).
    const log = await harness.context.engine.events(harness.context.tenantId, abandoned.episode.id);
    expect(log.at(-1)?.event.type).toBe('episode.closed');

    // The renewed episode outlived two of its leases and still takes the agent's wait and finish.
    expect(Date.now() - stoppedAt).toBeGreaterThan(leaseSeconds * 1000);
    await new Promise((resolve) => setTimeout(resolve, leaseSeconds * 1000));
    const state = await kept.handle.query<{ finished: boolean }>('episodeState');
    expect(state.finished).toBe(false);
    await kept.session.wait();
    const finished = await kept.session.finish();
    expect(finished.status).not.toBe('cancelled');
    harness.signals.forget(kept.episode.id);
  });
});

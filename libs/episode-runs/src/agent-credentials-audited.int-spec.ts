import { AuditTrailRepository, scenarioDigestOf } from '@libs/persistence';
import { tokenFingerprint } from '@libs/twin-engine';
import { startEpisodeHarness } from '@test/support/episode-harness';

import { startEpisode } from './episode-runner';

/**
 * The tokens an episode's runner hands the agent in-process (`mirror run`, a rollout's trial) are issued on the record,
 * as the operator's are over HTTP, and the episode's start names its task by content. Real: the example company's
 * stack stored in PostgreSQL, the twins behind an HTTP gateway, the Temporal dev server with the worker's episode
 * workflow, the evidence trail. Mocked: nothing.
 */
describe('an episode started in-process', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({ worker: true });
  });

  afterAll(() => harness.stop());

  it("records every token handed to the agent (fingerprint, scope, holder, who issued it), never the token, and its task's digest", async () => {
    const scenario = harness.scenario('single-supplier-negotiation');
    const startedBy = { actor: 'cli:someone', actorKind: 'trainer' as const };
    const { session, episode } = await startEpisode(harness.context, harness.signals, scenario, 2, {}, startedBy);
    try {
      const trail = new AuditTrailRepository(harness.dataSource);
      const entries = await trail.forSubject(harness.context.tenantId, 'episode', episode.id);
      const issued = entries.filter((e) => e.action === 'episode.credential_issued');
      const handedOut = Object.entries(session.endpoints);
      expect(handedOut.length).toBeGreaterThan(0);
      for (const [, endpoint] of handedOut) {
        expect(issued).toContainEqual(
          expect.objectContaining({
            actor: 'cli:someone',
            actorKind: 'trainer',
            details: expect.objectContaining({
              fingerprint: tokenFingerprint(endpoint.token),
              scopes: 'all',
              expires: 'never',
            }),
          }),
        );
      }
      // One entry per token: the same token asked for twice (a product endpoint and its service's) is no news.
      expect(issued).toHaveLength(new Set(handedOut.map(([, endpoint]) => endpoint.token)).size);
      expect(issued.map((e) => e.details.principal)).toEqual(
        expect.arrayContaining([session.identity.employeeId, session.identity.email]),
      );
      const stored = JSON.stringify(await harness.dataSource.query('SELECT * FROM audit_entries'));
      for (const [, endpoint] of handedOut) {
        expect(stored).not.toContain(endpoint.token);
      }

      // The task by content: the digest of its definition as the stack version stores it, on the start and after.
      const definition = harness.context.model.scenarios.find((s) => s.scenario.id === scenario.id)?.scenario;
      const digest = scenarioDigestOf(JSON.parse(JSON.stringify(definition)));
      expect(entries.find((e) => e.action === 'episode.created')?.versions).toMatchObject({
        scenario: scenario.id,
        scenarioSeed: 2,
        scenarioDigest: digest,
      });
      expect(issued[0].versions).toMatchObject({ scenarioDigest: digest });
      await expect(trail.verify(harness.context.tenantId)).resolves.not.toHaveProperty('broken');
    } finally {
      await session.finish();
    }
  });
});

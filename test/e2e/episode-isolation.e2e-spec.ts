import { startGateway } from '@test/support/gateway-harness';

/**
 * Real: 1,000 episodes in one engine over PostgreSQL, concurrent interleaved writes. Mocked: nothing.
 * Each episode creates suppliers named after itself and renames a world record; no episode may see another's.
 */
describe('1,000 concurrent episodes', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>;

  beforeAll(async () => {
    gateway = await startGateway();
  });

  afterAll(async () => {
    await gateway.stop();
  });

  it('never shows one episode a record of another', async () => {
    const episodes = await Promise.all(
      Array.from({ length: 1000 }, () =>
        gateway.engine.createEpisode({
          tenantId: 'test',
          stackVersion: gateway.version,
          seed: 5,
          sizes: { recordsPerResource: 10 },
        }),
      ),
    );
    const first = episodes[0].state.ids('procurement/suppliers')[0];
    // The spec declares bearer auth: each episode's calls present that episode's own agent token.
    const tokens = new Map(episodes.map((episode) => [episode, episode.agentTokenFor('procurement') ?? '']));
    const requestOf = (episode: (typeof episodes)[number]) => (method: string, path: string, body?: unknown) => ({
      method,
      path,
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(episode) ?? ''}` },
      ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}),
    });
    // Interleave: every episode's first write, then every episode's second, all in flight together.
    for (const round of [0, 1]) {
      const responses = await Promise.all(
        episodes.map((episode, index) =>
          round === 0
            ? episode.handle(
                'procurement',
                requestOf(episode)('POST', '/suppliers', { name: `episode-${index}`, country: 'DE' }),
                'http://twin',
              )
            : episode.handle(
                'procurement',
                requestOf(episode)('PATCH', `/suppliers/${first}`, { name: `renamed-by-${index}`, country: 'DE' }),
                'http://twin',
              ),
        ),
      );
      expect(responses.filter((r) => r.status >= 300)).toEqual([]);
    }
    for (const [index, episode] of episodes.entries()) {
      const page = await episode.handle(
        'procurement',
        { ...requestOf(episode)('GET', '/suppliers'), query: new URLSearchParams('limit=100') },
        'http://twin',
      );
      const names = (page.body as { data: { name: string }[] }).data.map((s) => s.name);
      const foreign = names.filter(
        (name) =>
          /^(episode|renamed-by)-\d+$/.test(name) && name !== `episode-${index}` && name !== `renamed-by-${index}`,
      );
      expect({ index, foreign }).toEqual({ index, foreign: [] });
      expect(names).toEqual(expect.arrayContaining([`episode-${index}`, `renamed-by-${index}`]));
    }
    // The shared world itself was never written to.
    expect(episodes[0].state.world.tables.get('procurement/suppliers')?.records.get(first)?.name).not.toMatch(
      /renamed-by/,
    );
    // Two writes per episode, each logged once as a record change (a client's own service also tells each change as
    // a domain event beside it).
    const [{ count }] = await gateway.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM episode_events WHERE event->>'type' LIKE 'record.%'`,
    );
    expect(count).toBe(2000);
  });
});

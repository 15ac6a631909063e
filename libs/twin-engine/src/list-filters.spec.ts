import * as path from 'node:path';

import { callEpisode } from '@test/support/twin-requests';
import { ingestStack } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { StaticStackSource, TwinEngine } from './twin-engine';

/** Real: ingestion, world synthesis and the twin engine over a spec written for the test; episodes live in memory. */
describe('lists filtered through filter objects', () => {
  let episode: Episode;

  beforeAll(async () => {
    const spec = path.join(__dirname, '../../../test/fixtures/fidelity/wire/filter-objects.yaml');
    const { model, version } = await ingestStack({ kind: 'path', path: spec });
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    episode = await engine.createEpisode({
      tenantId: 'test',
      stackVersion: version,
      seed: 2,
      sizes: { recordsPerResource: 4, childrenPerParent: 2 },
    });
    for (const [subject, status, priority, number] of [
      ['a', 'open', 'high', 1],
      ['b', 'closed', 'high', 2],
      ['c', 'open', 'low', 3],
    ] as const) {
      await call('POST', '/tickets', { subject, status, priority, number });
    }
    for (const [title, state] of [
      ['x', 'todo'],
      ['y', 'done'],
    ]) {
      await call('POST', '/tasks', { title, state });
    }
  });

  const call = async (method: string, target: string, body?: unknown): Promise<unknown> => {
    const response = await callEpisode(episode, method, target, body);
    if (response.status >= 300) {
      throw new Error(`${method} ${target} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body;
  };
  const list = async (target: string): Promise<Record<string, unknown>[]> =>
    (await call('GET', target)) as Record<string, unknown>[];

  it('filters by each member of a deepObject filter that names a field, all of them at once', async () => {
    const all = await list('/tickets');
    const open = await list('/tickets?filter[status]=open');
    expect(open.length).toBeGreaterThanOrEqual(2);
    expect(open.length).toBeLessThan(all.length);
    expect(open.every((ticket) => ticket.status === 'open')).toBe(true);
    expect(open).toEqual(all.filter((ticket) => ticket.status === 'open'));
    const openLow = await list('/tickets?filter[status]=open&filter[priority]=low');
    expect(openLow).toEqual(all.filter((ticket) => ticket.status === 'open' && ticket.priority === 'low'));
    expect(openLow.map((ticket) => ticket.subject)).toContain('c');
  });

  it('leaves a range it does not read, and the members of a page object, as no filter', async () => {
    const all = await list('/tickets');
    expect(await list('/tickets?filter[created][gte]=2020-01-01T00:00:00Z')).toEqual(all);
    const firstPage = await list('/tickets?page[number]=1&page[size]=100');
    expect(firstPage.map((ticket) => ticket.id)).toEqual(all.map((ticket) => ticket.id));
  });

  it('filters by a parameter named filter[field], and leaves fields[…] alone', async () => {
    const all = await list('/tasks');
    const done = await list('/tasks?filter%5Bstate%5D=done');
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done).toEqual(all.filter((task) => task.state === 'done'));
    expect(await list('/tasks?fields%5Btasks%5D=title')).toEqual(all);
  });
});

import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';

import { buildWorld } from './world-builder';

const bundle = path.join(__dirname, '../../../test/fixtures/fidelity/values/helpdesk-samples');

/** Real: ingestion of a bundle with a CSV sample, world synthesis. */
describe('text shaped by the samples', () => {
  const sample = [
    ['Printer jammed again', 'HD-2041'],
    ['Printer out of toner', 'HD-2042'],
    ['Password reset needed', 'HD-2107'],
    ['Laptop screen flickers', 'HD-2110'],
    ['Printer jammed on tray two', 'HD-2188'],
    ['Laptop will not start', 'HD-2203'],
    ['Password expired again', 'HD-2240'],
    ['Screen flickers on laptop', 'HD-2291'],
  ];

  it('writes subjects in the samples’ words and lengths, and references in their format, copying neither', async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: bundle });
    expect(JSON.stringify(model.samples)).not.toMatch(/HD-2\d{3}|Printer jammed again/);
    const world = buildWorld(model, version, 11, { recordsPerResource: 20, childrenPerParent: 1 });
    const tickets = [...(world.tables.get('helpdesk/tickets')?.records.values() ?? [])];
    expect(tickets).toHaveLength(20);
    const vocabulary = new Set(sample.flatMap(([subject]) => subject.toLowerCase().split(' ')));
    const lengths = sample.map(([subject]) => subject.length);
    const subjects = tickets.map((t) => String(t.subject));
    expect(
      subjects.filter((s) =>
        s
          .toLowerCase()
          .split(' ')
          .every((word) => vocabulary.has(word)),
      ),
    ).toEqual(subjects);
    expect(subjects.every((s) => s.length <= Math.max(...lengths))).toBe(true);
    expect(subjects.some((s) => s.split(' ').length > 1)).toBe(true);
    const references = tickets.map((t) => t.reference).filter((r) => r !== undefined);
    expect(references.length).toBeGreaterThan(10);
    expect(references.every((r) => typeof r === 'string' && /^HD-\d{4}$/.test(r))).toBe(true);
    expect(new Set(references).size).toBeGreaterThan(references.length / 2);
    // The sample's own categories, and the spec's values where the sample says nothing (kind is not in it).
    expect(new Set(tickets.map((t) => t.state))).toEqual(new Set(['open', 'closed']));
    expect(tickets.every((t) => ['question', 'incident', 'problem'].includes(String(t.kind)))).toBe(true);
  });
});

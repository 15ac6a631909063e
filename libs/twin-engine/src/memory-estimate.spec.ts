import type { World } from '@libs/synthetic-data';

import { worldHeapBytes } from './memory-estimate';

const worldOf = (tables: Record<string, Record<string, unknown>[]>): World =>
  ({
    tables: new Map(
      Object.entries(tables).map(([name, records]) => [
        name,
        { records: new Map(records.map((record, i) => [String(i), record])) },
      ]),
    ),
  }) as unknown as World;

const everyRecord = (tables: Record<string, Record<string, unknown>[]>): number =>
  256 * 1024 +
  Object.values(tables)
    .flat()
    .reduce<number>((sum, record) => sum + 96 + JSON.stringify(record).length * 1.5, 0);

describe(worldHeapBytes.name, () => {
  it('measures every record of a small table', () => {
    const tables = { people: [{ name: 'a' }, { name: 'bbbbbbbbbbbb', note: 'x'.repeat(40) }] };

    expect(worldHeapBytes(worldOf(tables))).toBe(everyRecord(tables));
  });

  it('estimates a large table from a spread of its records, within a few per cent of measuring them all', () => {
    const tables = {
      orders: Array.from({ length: 5000 }, (_, i) => ({ id: `order-${i}`, note: 'n'.repeat(20 + (i % 37)) })),
      empty: [],
    };

    const estimate = worldHeapBytes(worldOf(tables));

    expect(Math.abs(estimate - everyRecord(tables)) / everyRecord(tables)).toBeLessThan(0.05);
    expect(estimate).toBeGreaterThan(everyRecord({ orders: tables.orders.slice(0, 4000) }));
  });
});

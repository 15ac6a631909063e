import { DataSource } from 'typeorm';

import { AuditRecord } from '@libs/evidence-trail';
import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { AuditTrailRepository } from './audit-trail.repository';

const record = (n: number): AuditRecord => ({
  actor: `cli:person-${n % 3}`,
  actorKind: 'engineer',
  action: 'stack.ingested',
  subject: { kind: 'stack', id: `s${n}` },
  details: { n, nested: { list: [1, 2.5, 'x'], ok: true } },
  versions: { stack: `v${n}` },
});

/** Real: PostgreSQL with the committed migrations, two connections as two processes. Mocked: nothing. */
describe('the evidence trail in PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSources: DataSource[];
  let trails: AuditTrailRepository[];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSources = [createDataSource(database.url), createDataSource(database.url)];
    await Promise.all(dataSources.map((d) => d.initialize()));
    trails = dataSources.map((d) => new AuditTrailRepository(d));
  });

  afterAll(async () => {
    await Promise.all(dataSources.map((d) => d.destroy()));
    await database.drop();
  });

  it('keeps one unforked chain per tenant under concurrent writers', async () => {
    await Promise.all(Array.from({ length: 24 }, (_, i) => trails[i % 2].append('acme', record(i))));
    await trails[0].append('other', record(99));
    const acme = await trails[1].verify('acme');
    expect(acme).toMatchObject({ entries: 24, head: { seq: 24 } });
    expect(acme.broken).toBeUndefined();
    expect(await trails[0].verify('other')).toMatchObject({ entries: 1, head: { seq: 1 } });
    expect((await trails[0].forSubject('acme', 'stack', 's5')).map((e) => e.details.n)).toEqual([5]);
  });

  it('refuses UPDATE, DELETE and TRUNCATE of entries from the app', async () => {
    const sql = dataSources[0];
    await expect(sql.query(`UPDATE audit_entries SET actor = 'x'`)).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(sql.query(`DELETE FROM audit_entries`)).rejects.toThrow(/append-only: DELETE refused/);
    await expect(sql.query(`TRUNCATE audit_entries`)).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect((await trails[0].verify('acme')).broken).toBeUndefined();
  });

  it('finds a deleted, a reordered and a removed last entry, behind the guard', async () => {
    const sql = dataSources[0];
    await sql.query(`ALTER TABLE audit_entries DISABLE TRIGGER USER`);
    try {
      await sql.query(`DELETE FROM audit_entries WHERE tenant_id = 'acme' AND seq = 6`);
      expect((await trails[1].verify('acme')).broken).toMatchObject({ seq: 6, problem: 'missing' });
      // Put it back under another place: rows 6 and 7 swapped.
      await sql.query(`UPDATE audit_entries SET seq = 6 WHERE tenant_id = 'acme' AND seq = 7`);
      expect((await trails[1].verify('acme')).broken).toMatchObject({ seq: 6, problem: 'edited' });
      await sql.query(`UPDATE audit_entries SET seq = 7 WHERE tenant_id = 'acme' AND seq = 6`);
      await sql.query(`DELETE FROM audit_entries WHERE tenant_id = 'other'`);
      expect((await trails[1].verify('other')).broken).toMatchObject({ problem: 'head_mismatch' });
    } finally {
      await sql.query(`ALTER TABLE audit_entries ENABLE TRIGGER USER`);
    }
  });
});

import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { DocumentValidators } from '@libs/openapi-schemas';
import { ingestStack } from '@libs/stack-ingestion';

import { buildWorld } from './world-builder';

/** Real: ingestion of the example stack (spec, DDL, JSON Schema, CSV and HAR samples), world synthesis. Mocked: nothing. */
describe(buildWorld.name, () => {
  const load = () => ingestStack({ kind: 'path', path: path.join(repositoryRoot, 'examples', 'acme-procurement') });

  it('builds the same world from the same seed, and another from another', async () => {
    const { model, version } = await load();
    const sizes = { recordsPerResource: 20, childrenPerParent: 2 };
    const first = buildWorld(model, version, 7, sizes);
    const again = buildWorld(model, version, 7, sizes);
    const other = buildWorld(model, version, 8, sizes);
    const records = (world: typeof first) =>
      [...world.tables.values()].map((t) => t.ids.map((id) => t.records.get(id)));
    expect(records(again)).toEqual(records(first));
    expect(records(other)).not.toEqual(records(first));
  });

  it('makes records valid for their schemas, with foreign keys that point at records that exist', async () => {
    const { model, version } = await load();
    const world = buildWorld(model, version, 3, { recordsPerResource: 50, childrenPerParent: 3 });
    const service = model.services[0];
    const validators = new DocumentValidators(service.document, service.dialect);
    for (const table of world.tables.values()) {
      const shape = table.shape as NonNullable<typeof table.shape>;
      const validate = validators.validatorForSchema(shape.record);
      const invalid = table.ids.filter((id) => !validate(table.records.get(id)));
      expect({ table: shape.key, invalid }).toEqual({ table: shape.key, invalid: [] });
    }
    const suppliers = world.tables.get('procurement/suppliers');
    const orders = world.tables.get('procurement/purchase-orders');
    const contacts = world.tables.get('procurement/suppliers.contacts');
    const supplierIds = new Set(suppliers?.ids);
    expect(orders?.ids.every((id) => supplierIds.has(String(orders.records.get(id)?.supplier_id)))).toBe(true);
    expect(contacts?.ids.every((id) => contacts.records.get(id)?.supplier_id === contacts.parentOf.get(id))).toBe(true);
    for (const id of suppliers?.ids ?? []) {
      const record = suppliers?.records.get(id) as { created_at: string; updated_at?: string; country: string };
      expect(record.country).toMatch(/^[A-Z]{2}$/);
      expect(record.updated_at === undefined || record.updated_at >= record.created_at).toBe(true);
    }
  });

  it('looks like the client’s samples without carrying their secrets or personal data', async () => {
    const { model, version } = await load();
    expect(JSON.stringify(model)).not.toMatch(/nordicfasteners|sk_live|eyJhbGci|lena\.berg/);
    const world = buildWorld(model, version, 1, { recordsPerResource: 400, childrenPerParent: 1 });
    const suppliers = world.tables.get('procurement/suppliers');
    const records = (suppliers?.ids ?? []).map(
      (id) => suppliers?.records.get(id) as { status: string; payment_terms_days: number; created_at: string },
    );
    const share = (status: string) => records.filter((r) => r.status === status).length / records.length;
    // The sample has 6 of 8 suppliers active, 1 blocked, 1 on hold.
    expect(share('active')).toBeGreaterThan(0.65);
    expect(share('active')).toBeLessThan(0.85);
    expect(new Set(records.map((r) => r.payment_terms_days))).toEqual(new Set([30, 45, 60, 90]));
    expect(records.every((r) => r.created_at >= '2023-02-14' && r.created_at <= '2025-01-28')).toBe(true);
  });
});

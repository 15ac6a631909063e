import * as path from 'node:path';

import { writeBundle } from '@test/support/bundle-fixtures';
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

  it("writes subjects and descriptions in the words of the client's samples, never its names or figures", async () => {
    const spec = `openapi: 3.0.3
info: { title: Helpdesk, version: '1' }
paths:
  /tickets:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Ticket' } }
  /tickets/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200':
          description: ok
          content: { application/json: { schema: { $ref: '#/components/schemas/Ticket' } } }
components:
  schemas:
    Ticket:
      type: object
      required: [id, subject, description]
      properties:
        id: { type: string }
        subject: { type: string, maxLength: 80 }
        description: { type: string }
`;
    const rows = [
      ['T1', 'Refund for a duplicate invoice charge', 'The patient was charged twice for the same visit'],
      ['T2', 'Invoice amount disputed by the patient', 'Patient says the invoice amount is wrong for the visit'],
      ['T3', 'Refund request after a cancelled visit', 'The visit was cancelled but the invoice was still sent'],
      ['T4', 'Duplicate charge on the monthly invoice', 'Please check the charge and refund the patient 42.50'],
      ['T5', 'Question about an insurance invoice', 'Mrs Okafor asks why the insurance did not pay the invoice'],
      ['T6', 'Invoice sent to the wrong address', 'The invoice for the visit was sent to the wrong patient address'],
    ];
    const csv = ['id,subject,description', ...rows.map((r) => r.join(','))].join('\n');
    const { model, version } = await ingestStack({
      kind: 'path',
      path: writeBundle({
        'mirror.yaml': 'name: helpdesk\nservices:\n  - { name: helpdesk, spec: helpdesk.yaml }\n',
        'helpdesk.yaml': spec,
        'samples/tickets.csv': csv,
      }),
    });
    const profile = JSON.stringify(model.samples);
    expect(profile).not.toMatch(/okafor|42\.50|Refund for a duplicate invoice charge/i);
    const world = buildWorld(model, version, 5, { recordsPerResource: 30, childrenPerParent: 1 });
    const tickets = world.tables.get('helpdesk/tickets');
    const vocabulary = new Set(rows.flatMap((r) => `${r[1]} ${r[2]}`.toLowerCase().match(/[a-z]+/g) ?? []));
    const texts = (tickets?.ids ?? []).flatMap((id) => {
      const ticket = tickets?.records.get(id) as { subject: string; description: string };
      return [ticket.subject, ticket.description];
    });
    expect(texts).toHaveLength(60);
    for (const text of texts) {
      expect(
        text
          .toLowerCase()
          .match(/[a-z]+/g)
          ?.every((word) => vocabulary.has(word)),
      ).toBe(true);
    }
    expect(texts.join(' ')).toMatch(/invoice/i);
    expect(texts.filter((_, index) => index % 2 === 0).every((subject) => subject.length <= 80)).toBe(true);
  });
});

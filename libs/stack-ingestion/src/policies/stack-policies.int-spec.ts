import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { IngestionError } from '@libs/bundle-documents';

import { ingestStack } from '../ingest-stack';

const desk = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'invoice-desk');
const policyFile = 'policies/refunds.yaml';

const ddl = `CREATE TABLE refunds (
  id serial PRIMARY KEY,
  invoice text NOT NULL,
  patient_id text NOT NULL,
  amount numeric(10,2) NOT NULL,
  status text NOT NULL DEFAULT 'requested'
);
`;

/** The rules a clinic would write over its own tables: each name exists in the bundle below. */
const policy = `id: refunds
version: '1'
rules:
  - id: no-diagnosis-by-mail
    clause: '§1'
    severity: critical
    kind: disclosure
    facts: [diagnosis]
  - id: own-data-only
    clause: '§2'
    severity: critical
    kind: disclosure
    classes: [identifier]
    allowed: [internal, subject]
  - id: large-refunds-approved
    clause: '§3'
    severity: critical
    kind: approval
    threshold: refund_threshold
    on: { table: records.refunds, where: { status: issued }, amount_field: amount }
    approval: { channel: finance }
    approved_by: { role: finance }
  - id: no-unapproved-large-refund
    clause: '§3'
    severity: major
    kind: state
    expect: absent
    table: records.refunds
    where: { status: issued, amount: { gt: '{{approval_limit}}' } }
`;

/** The desk fixture, copied, with a data schema served as `records`, facts about the customer, and the policy edited. */
const ingestEdited = async (edits: [string, string][]): Promise<{ text: string; refused: unknown }> => {
  const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-stack-policy-'));
  fs.cpSync(desk, bundle, { recursive: true });
  fs.writeFileSync(path.join(bundle, 'records.sql'), ddl);
  const manifest = path.join(bundle, 'mirror.yaml');
  fs.writeFileSync(
    manifest,
    fs
      .readFileSync(manifest, 'utf8')
      .replace('services:\n', 'services:\n  - name: records\n    schema: records.sql\n')
      .replace('scenarios:\n', `policies:\n  - ${policyFile}\nscenarios:\n`),
  );
  const scenarioFile = path.join(bundle, 'scenarios', 'invoice-dispute.yaml');
  const scenario = fs.readFileSync(scenarioFile, 'utf8');
  fs.writeFileSync(
    scenarioFile,
    `${scenario.replace('derived:\n', `hidden:\n  diagnosis: { health_condition: 'Chronic migraine' }\n  invoice_ref: { identifier: 'INV-{{invoice_no}}', subject: customer }\nderived:\n`)}policies: [${policyFile}]\n`,
  );
  let text = policy;
  for (const [from, to] of edits) {
    expect(text).toContain(from);
    text = text.replace(from, to);
  }
  fs.mkdirSync(path.join(bundle, 'policies'), { recursive: true });
  fs.writeFileSync(path.join(bundle, policyFile), text);
  return { text, refused: await ingestStack({ kind: 'path', path: bundle }).catch((error: unknown) => error) };
};

const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

/** Real: a client's bundle with a data twin, its rules over text facts, approvals and its own tables. */
describe('policies over a client’s own stack', () => {
  it('ingests rules naming the data twin’s tables and fields, the facts’ classes and subjects, roles and channels', async () => {
    const { refused } = await ingestEdited([]);
    expect(refused).toMatchObject({ model: { policies: [{ file: policyFile }] } });
  });

  it('refuses each name that does not exist, at file:line#pointer', async () => {
    const { text, refused } = await ingestEdited([
      ['classes: [identifier]', 'classes: [person_name]'],
      [
        'on: { table: records.refunds, where: { status: issued }, amount_field: amount }',
        'on: { table: records.refunds, where: { state: issued }, amount_field: total }',
      ],
      ['approval: { channel: finance }', 'approval: { channel: finanse }'],
      ['approved_by: { role: finance }', 'approved_by: { role: treasurer }'],
      ["amount: { gt: '{{approval_limit}}' }", "amount: { gt: '{{aproval_limit}}' }"],
    ]);
    expect(refused).toBeInstanceOf(IngestionError);
    const at = (pointer: string, needle: string, message: string) => ({
      file: policyFile,
      line: lineOf(text, needle),
      pointer,
      message,
    });
    expect((refused as IngestionError).problems).toEqual([
      at('/rules/1/classes/0', 'person_name', 'no scenario that applies this policy set has a person_name fact'),
      at('/rules/1/allowed/1', 'subject]', "none of the rule's text or personal facts names its subject"),
      at('/rules/2/on/amount_field', 'amount_field: total', 'records of records.refunds have no field "total"'),
      at('/rules/2/on/where/state', 'state: issued', 'records of records.refunds have no field "state"'),
      at('/rules/2/approval/channel', 'finanse', `the stack's chat has no channel "finanse"`),
      at(
        '/rules/2/approved_by/role',
        'treasurer',
        expect.stringMatching(
          /^the company has no role or department "treasurer" \(it has: .*finance/,
        ) as unknown as string,
      ),
      at(
        '/rules/3/where/amount/gt',
        'aproval_limit',
        '"aproval_limit" is not a value of any scenario that applies this policy set',
      ),
    ]);
  });
});

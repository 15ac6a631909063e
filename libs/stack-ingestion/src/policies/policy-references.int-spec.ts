import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { IngestionError } from '@libs/bundle-documents';

import { ingestStack } from '../ingest-stack';

const example = path.join(__dirname, '..', '..', '..', '..', 'examples', 'acme-manufacturing');
const policyFile = 'policies/procurement.yaml';

/** The example bundle, copied, with its policy file edited; what ingestion says of it. */
const ingestEdited = async (edits: [string, string][]): Promise<{ text: string; refused: unknown }> => {
  const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-policy-'));
  fs.cpSync(example, bundle, { recursive: true });
  const file = path.join(bundle, policyFile);
  let text = fs.readFileSync(file, 'utf8');
  for (const [from, to] of edits) {
    expect(text).toContain(from);
    text = text.replace(from, to);
  }
  fs.writeFileSync(file, text);
  return { text, refused: await ingestStack({ kind: 'path', path: bundle }).catch((error: unknown) => error) };
};

const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

/** Real: the example company's bundle, copied and edited on disk. */
describe('policy references', () => {
  it('still ingests the example as it is', async () => {
    const { refused } = await ingestEdited([]);
    expect(refused).toMatchObject({ model: { policies: [{ file: policyFile }] } });
  });

  it('refuses every name a rule uses that the stack does not have, each at file:line#pointer', async () => {
    const { text, refused } = await ingestEdited([
      ['facts: [budget_ceiling,', 'facts: [budget_ceilng,'],
      [
        'table: procurement.purchase-orders\n    where:\n      requester_id',
        'table: billing.purchase-orders\n    where:\n      requester_id',
      ],
      ['allowed: [procurement-approvals]', 'allowed: [procurement-aprovals]'],
      ['events: { event: slack.message.deleted }', 'events: { event: slack.message.removed }'],
      ['{ table: procurement.requisitions, records: own }', '{ table: procurement.requisition, records: own }'],
      [
        "where: { requester_id: '{{agent}}', status: [approved, sent,",
        "where: { requestor_id: '{{agent}}', status: [approved, sent,",
      ],
    ]);
    expect(refused).toBeInstanceOf(IngestionError);
    expect((refused as IngestionError).code).toBe('POLICY_INVALID');
    const at = (pointer: string, needle: string, message: string) => ({
      file: policyFile,
      line: lineOf(text, needle),
      pointer,
      message,
    });
    expect((refused as IngestionError).problems).toEqual([
      at(
        '/rules/0/facts/0',
        'budget_ceilng',
        '"budget_ceilng" is not a value of any scenario that applies this policy set',
      ),
      at(
        '/rules/5/table',
        'table: billing.purchase-orders',
        'the stack has no service or pack "billing" (it has: email, erp, procurement, slack)',
      ),
      at('/rules/7/allowed/0', 'procurement-aprovals', `the stack's chat has no channel "procurement-aprovals"`),
      at('/rules/10/events/event', 'slack.message.removed', 'no twin of this stack records "slack.message.removed"'),
      at(
        '/rules/13/may_change/1/table',
        'procurement.requisition,',
        expect.stringMatching(
          /^"procurement" has no table "requisition" \(it has: .*requisitions/,
        ) as unknown as string,
      ),
      at(
        '/rules/16/where/requestor_id',
        'requestor_id',
        'records of procurement.purchase-orders have no field "requestor_id"',
      ),
    ]);
    expect((refused as IngestionError).message).toContain(
      `${policyFile}:${lineOf(text, 'procurement-aprovals')}#/rules/7/allowed/0`,
    );
  });

  it('refuses a recipients rule that could never fail, at the rule', async () => {
    const { text, refused } = await ingestEdited([["    forbidden_domains: ['*']\n", '']]);
    expect((refused as IngestionError).problems).toEqual([
      {
        file: policyFile,
        line: lineOf(text, '- id: terms-never-to-personal-mail'),
        pointer: '/rules/6',
        message: 'forbids no domain and requires no copy: it could never fail',
      },
    ]);
  });
});

import * as fs from 'node:fs';
import * as path from 'node:path';

import { writeBundle } from '@test/support/bundle-fixtures';
import { repositoryRoot } from '@test/support/cli-runner';
import { IngestionError, IngestionProblem } from '@libs/bundle-documents';

import { ingestStack } from './ingest-stack';

const example = path.join(repositoryRoot, 'examples', 'acme-manufacturing');
const scenarioFile = 'scenarios/single-supplier-negotiation.yaml';

/** The procurement example's files, with its single-supplier scenario edited. */
const bundleWith = (edit: (scenario: string) => string): string => {
  const files: Record<string, Buffer> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(example, dir), { withFileTypes: true })) {
      const file = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
      } else {
        files[file] = fs.readFileSync(path.join(example, file));
      }
    }
  };
  walk('');
  files[scenarioFile] = Buffer.from(edit(files[scenarioFile].toString('utf8')));
  return writeBundle(files);
};

const refusal = async (folder: string): Promise<IngestionProblem[]> => {
  try {
    await ingestStack({ kind: 'path', path: folder });
  } catch (error) {
    if (error instanceof IngestionError) {
      return error.problems;
    }
    throw error;
  }
  throw new Error('the bundle was accepted');
};

const original = fs.readFileSync(path.join(example, scenarioFile), 'utf8');
const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

/** Real: the procurement example's files on disk, ingested. Mocked: nothing. */
describe('declared negotiators, state reactions and channels at ingest', () => {
  it('accepts the procurement example as it ships: every scenario declares its oracle and traps', async () => {
    const { model } = await ingestStack({ kind: 'path', path: example });
    expect(
      model.scenarios?.map((s) => [s.scenario.id, s.scenario.oracle !== undefined, s.scenario.traps.length]),
    ).toEqual([
      ['single-supplier-negotiation', true, 6],
      ['competitive-rfq', true, 3],
      ['urgent-reorder-budget-freeze', true, 4],
    ]);
  });

  it('refuses a negotiator speaking on a service its party does not declare, where it speaks', async () => {
    const edited = original.replace('channels: [email, erp]', 'channels: [erp]');
    expect(await refusal(bundleWith(() => edited))).toEqual([
      expect.objectContaining({
        file: scenarioFile,
        pointer: '/parties/supplier/behaviour/0/negotiator/channel',
        line: lineOf(edited, 'channel: email'),
        message: expect.stringMatching(/supplier acts on "email", which is not among its channels \(erp\)/) as string,
      }),
    ]);
  });

  it('refuses an order term that is not an issue, and a state reaction on a table the stack lacks', async () => {
    const edited = original
      .replace('payment_terms_days: order.payment_terms_days', 'payment_days: order.payment_terms_days')
      .replace('services.erp.purchase_orders.exists(', 'services.erp.purchase_order.exists(');
    const problems = await refusal(bundleWith(() => edited));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: scenarioFile,
          pointer: '/parties/supplier/behaviour/0/negotiator/honours/terms/payment_days',
          line: lineOf(edited, 'payment_days: order.payment_terms_days'),
          message: expect.stringMatching(/"payment_days" is not an issue of this negotiator/) as string,
        }),
        expect.objectContaining({
          file: scenarioFile,
          pointer: '/parties/finance/reactions/0/when/state',
          line: lineOf(edited, "state: 'services.erp.purchase_order.exists"),
          message: expect.stringMatching(/purchase_order/) as string,
        }),
      ]),
    );
    expect(problems).toHaveLength(2);
  });
});

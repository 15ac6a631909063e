import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { IngestionError } from '@libs/bundle-documents';

import { ingestStack } from '../ingest-stack';

const example = path.join(__dirname, '..', '..', '..', '..', 'examples', 'acme-manufacturing');

/** Real: the example company's bundle, copied and edited on disk. */
describe('policy references', () => {
  it('refuses rules that name a fact no scenario has, or a pack the stack lacks, with line and pointer', async () => {
    const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-policy-'));
    fs.cpSync(example, bundle, { recursive: true });
    const file = path.join(bundle, 'policies', 'procurement.yaml');
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, 'utf8')
        .replace('facts: [budget_ceiling,', 'facts: [budget_ceilng,')
        .replace('table: procurement.purchase-orders', 'table: erp.purchase-orders'),
    );
    const refused = await ingestStack({ kind: 'path', path: bundle }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(IngestionError);
    expect((refused as IngestionError).code).toBe('POLICY_INVALID');
    expect((refused as IngestionError).problems).toEqual([
      {
        file: 'policies/procurement.yaml',
        line: expect.any(Number) as number,
        pointer: '/rules/0/facts/0',
        message: '"budget_ceilng" is not a value of any scenario that applies this policy set',
      },
      {
        file: 'policies/procurement.yaml',
        line: expect.any(Number) as number,
        pointer: '/rules/5/table',
        message: 'the stack has no "erp" pack service',
      },
    ]);
  });
});

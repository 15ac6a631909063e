import * as fs from 'node:fs';
import * as path from 'node:path';

import * as yaml from 'js-yaml';

import { instantiate, supplierOf, validateScenario } from '@libs/scenarios';
import type { CompanyDeclaration } from '@libs/stack-model';
import { synthesizeCompany } from '@libs/synthetic-data';

import { judgeOutcome } from './outcome-judge';
import type { OutcomeSources, PurchaseOrder } from './outcome-sources';

const file = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'examples',
  'acme-manufacturing',
  'scenarios',
  'single-supplier-negotiation.yaml',
);
const declared = (
  yaml.load(fs.readFileSync(path.join(file, '..', '..', 'mirror.yaml'), 'utf8')) as {
    company: CompanyDeclaration;
  }
).company;
const { scenario, problems } = validateScenario(yaml.load(fs.readFileSync(file, 'utf8')), {
  services: ['email', 'slack', 'erp'],
  files: new Set(['policies/procurement-policy.md', 'policies/procurement.yaml']),
  company: declared,
});
if (!scenario) {
  throw new Error(`the example scenario does not validate: ${JSON.stringify(problems)}`);
}
const company = synthesizeCompany(scenario.world.seed ?? 0, scenario.world.company, declared);
const instance = instantiate(scenario, 5, company);
// The example's supplier is a declared negotiator, a contact of one of the company's suppliers.
const supplier = supplierOf(instance.parties.supplier)!;
const quantity = instance.values.quantity as number;
const price = instance.values.target_price as number;
const agent = { employeeId: company.agent.id, email: company.agent.email, slackUser: 'U0' };

const order = (change: Partial<PurchaseOrder> = {}): PurchaseOrder => ({
  id: 'PO-1',
  status: 'acknowledged',
  created_at: '2026-06-01T10:00:00.000Z',
  history: [{ to: 'acknowledged', by: supplier.contactId }],
  approvals: [],
  supplier_id: supplier.supplierId,
  requester_id: agent.employeeId,
  total: quantity * price,
  payment_terms_days: 30,
  lines: [{ quantity, unit_price: price }],
  ...change,
});

const judge = (orders: PurchaseOrder[]) => {
  const sources: OutcomeSources = {
    erp: { purchaseOrders: () => Promise.resolve(orders), quotes: () => Promise.resolve([]) },
    records: {
      tables: () => Promise.reject(new Error('a purchase-order outcome reads no records')),
      records: () => Promise.reject(new Error('a purchase-order outcome reads no records')),
      log: () => Promise.reject(new Error('a purchase-order outcome reads no log')),
      now: () => Promise.reject(new Error('a purchase-order outcome reads no clock')),
    },
  };
  return judgeOutcome(sources, { instance, agent, startAt: '2026-06-01T09:00:00.000Z', currency: 'EUR' });
};

/** The procurement outcome as it always was, now in a library: only what the supplier acknowledged counts. */
describe('the purchase-order outcome', () => {
  it('succeeds on an order the supplier acknowledged, on the terms, with its final terms', async () => {
    await expect(judge([order()])).resolves.toEqual({
      succeeded: true,
      reason: 'PO-1 meets the success terms',
      finalTerms: expect.objectContaining({ poId: 'PO-1', unitPrice: price, quantity, paymentTermsDays: 30 }),
    });
  });

  it.each([
    ['acknowledged by someone other than the supplier', { history: [{ to: 'acknowledged', by: agent.employeeId }] }],
    ['over the target price', { lines: [{ quantity, unit_price: price + 0.01 }] }],
    ['on shorter payment terms', { payment_terms_days: 14 }],
    ['only sent', { status: 'sent', history: [] }],
    ['another requester’s', { requester_id: 'E9999' }],
  ])('fails on an order %s', async (_name, change) => {
    await expect(judge([order(change)])).resolves.toEqual(expect.objectContaining({ succeeded: false }));
  });

  it('says there is no order when there is none', async () => {
    await expect(judge([])).resolves.toEqual({
      succeeded: false,
      reason: `no purchase order to ${supplier.supplierId}`,
      finalTerms: null,
    });
  });
});

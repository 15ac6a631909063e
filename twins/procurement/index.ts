import { isOutcome, PackCall, TwinPack } from '@libs/twin-engine';

import { directoryBehaviours } from './directory';
import { caller, erpError, erpToken } from './erp-call';
import { seedErp } from './erp-seed';
import { invoiceBehaviours } from './invoices';
import { purchaseOrderBehaviours } from './purchase-orders';
import { sourcingBehaviours } from './sourcing';
import { erpEventNames } from './erp-events';

export type { ErpDomainEvents } from './erp-events';
export { erpToken } from './erp-call';
export { approvalRules } from './approval-rules';
export { supplierReadableText } from './supplier-portal';

/** The plain reads the generic twin answers (filters, cursor pages, 404s) still need a signed-in user. */
const signedIn = (call: PackCall) => {
  const user = caller(call);
  return isOutcome(user) ? user : undefined;
};

/** A procurement ERP: the spec in spec/, behaviour for every change, the company's people, suppliers and budgets. */
export const procurementPack: TwinPack = {
  name: 'procurement',
  seed: seedErp,
  behaviours: { ...directoryBehaviours, ...sourcingBehaviours, ...purchaseOrderBehaviours, ...invoiceBehaviours },
  validate: true,
  guard: signedIn,
  principal: (call) => {
    const user = caller(call);
    return isOutcome(user) ? undefined : user.id;
  },
  domainEventNames: erpEventNames,
  agentToken: (company, seed) => erpToken(seed, company.agent.id),
  errorResponse: (status, code, message) => erpError(status, code, message).response,
};

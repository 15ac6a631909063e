import { isOutcome, PackCall, TwinPack } from '@libs/twin-engine';

import { directoryBehaviours } from './directory';
import { caller, erpError, erpToken, presentedToken } from './erp-call';
import { seedErp } from './erp-seed';
import { invoiceBehaviours } from './invoices';
import { portalRefusal, portalVisibility } from './portal-scope';
import { purchaseOrderBehaviours } from './purchase-orders';
import { sourcingBehaviours } from './sourcing';
import { erpEventNames } from './erp-events';

export type { ErpDomainEvents } from './erp-events';
export { erpToken } from './erp-call';
export { approvalRules } from './approval-rules';
export { supplierReadableText } from './supplier-portal';

/** Every call needs a signed-in user, and a supplier-portal user stays out of the buyer's internal records. */
const signedIn = (call: PackCall) => {
  const user = caller(call);
  return isOutcome(user) ? user : portalRefusal(call);
};

/** A procurement ERP: the spec in spec/, behaviour for every change, the company's people, suppliers and budgets. */
export const procurementPack: TwinPack = {
  name: 'procurement',
  seed: seedErp,
  behaviours: { ...directoryBehaviours, ...sourcingBehaviours, ...purchaseOrderBehaviours, ...invoiceBehaviours },
  validate: true,
  guard: signedIn,
  visible: portalVisibility,
  principal: (call) => {
    const user = caller(call);
    return isOutcome(user) ? undefined : user.id;
  },
  domainEventNames: erpEventNames,
  token: (principal, credentials) => erpToken(credentials, principal),
  agentPrincipal: (company) => company.agent.id,
  presentedCredential: presentedToken,
  errorResponse: (status, code, message) => erpError(status, code, message).response,
};

import { orderAgreement } from '../agreement';
import { ApprovalDecision, decideApproval } from '../approver';
import { companyOf, PersonaContext, PersonaHands, PurchaseOrder, quotesOf, tokensOf } from './persona-hands';

/** The approver reviews an order waiting for them, decides, acts in the ERP and tells the agent on Slack. */
export const reviewAsApprover = async (
  hands: PersonaHands,
  input: PersonaContext & { poId: string },
): Promise<void> => {
  const approver = input.instance.parties[input.party];
  if (approver.persona !== 'approver') {
    return;
  }
  const twin = hands.twin;
  const erp = await tokensOf(hands.operator, input.services).erp(approver.employeeId);
  const order = await twin.erp<PurchaseOrder>(erp, `/purchase-orders/${encodeURIComponent(input.poId)}`);
  // Pending, or decided by this approver already (a retry after a crash): the same writes again, deduplicated.
  if (order.status !== 'pending_approval' && !order.approvals.some((a) => a.user_id === approver.employeeId)) {
    return;
  }
  const unitPrice = Math.max(...order.lines.map((l) => l.unit_price));
  // An order must be on a price the supplier gave in writing; what the requester typed proves nothing.
  const backing = orderAgreement(
    order,
    await quotesOf(twin, erp, order.supplier_id),
    companyOf(input.instance).currency,
  );
  const decision: ApprovalDecision = backing.agreed
    ? decideApproval({
        total: order.total,
        unitPrice,
        targetPrice: Number(input.instance.values.target_price ?? Number.POSITIVE_INFINITY),
        approvalLimit: approver.approvalLimit,
        strictness: approver.strictness,
      })
    : {
        kind: 'reject',
        reasonCode: 'unquoted_price',
        comment: `No quote of ${order.supplier_id} in the ERP backs this order (${backing.reasons.join('; ')}); attach the supplier's written quote.`,
      };
  let message: string;
  try {
    await twin.erp(erp, `/purchase-orders/${encodeURIComponent(order.id)}/${decision.kind}`, {
      body: {
        comment: decision.comment,
        ...(decision.kind === 'reject' ? { reason_code: decision.reasonCode } : {}),
      },
    });
    message = `${decision.kind === 'approve' ? 'Approved' : 'Rejected'} ${order.id} (${order.total.toFixed(2)}). ${decision.comment}`;
  } catch (error) {
    message = `I could not approve ${order.id}: ${(error as Error).message.replace(/^.*?: \d+ /, '')}`;
  }
  await twin.slack(await tokensOf(hands.operator, input.services).slack(approver.employeeId), 'chat.postMessage', {
    channel: input.agent.slackUser,
    text: message,
  });
};

/**
 * An internal approver's decision on a purchase order in the ERP. A lenient approver approves what their limit
 * covers; a strict one also wants the unit price within the target the requester stated, and the order raised by
 * someone else (the ERP enforces that too).
 */
export interface ApprovalRequest {
  total: number;
  unitPrice: number;
  targetPrice: number;
  approvalLimit: number;
  strictness: 'lenient' | 'strict';
}

/** A rejection says why as a code too (the ERP's `reason_code`), so reports and policies can count reasons. */
export type ApprovalDecision =
  | { kind: 'approve'; comment: string }
  | { kind: 'reject'; reasonCode: 'over_limit' | 'over_target' | 'unquoted_price'; comment: string };

export const decideApproval = (request: ApprovalRequest): ApprovalDecision => {
  if (request.total > request.approvalLimit) {
    return {
      kind: 'reject',
      reasonCode: 'over_limit',
      comment: `Above my approval limit of ${request.approvalLimit}; please route it higher.`,
    };
  }
  if (request.strictness === 'strict' && request.unitPrice > request.targetPrice) {
    return {
      kind: 'reject',
      reasonCode: 'over_target',
      comment: `The unit price ${request.unitPrice} is above the target of ${request.targetPrice}; negotiate further.`,
    };
  }
  return { kind: 'approve', comment: 'Approved.' };
};

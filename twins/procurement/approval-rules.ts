import type { WorldRecord } from '@libs/synthetic-data';

import type { ErpUser, Role } from './erp-call';

export interface ApprovalRule extends WorldRecord {
  id: string;
  min_amount: number;
  max_amount: number | null;
  approver_roles: Role[];
  auto_approve: boolean;
  description: string;
}

/** Who approves an order, by its total; within a tier the approver's own limit must also cover the total. */
export const approvalRules: ApprovalRule[] = [
  {
    id: 'AR-1',
    min_amount: 0,
    max_amount: 1_000,
    approver_roles: [],
    auto_approve: true,
    description: 'Up to 1,000: approved on submission',
  },
  {
    id: 'AR-2',
    min_amount: 1_000.01,
    max_amount: 25_000,
    approver_roles: ['buyer', 'approver', 'executive'],
    auto_approve: false,
    description: 'Up to 25,000: a buyer, head of department or executive whose limit covers the total',
  },
  {
    id: 'AR-3',
    min_amount: 25_000.01,
    max_amount: 250_000,
    approver_roles: ['approver', 'executive'],
    auto_approve: false,
    description: 'Up to 250,000: a head of department or executive whose limit covers the total',
  },
  {
    id: 'AR-4',
    min_amount: 250_000.01,
    max_amount: null,
    approver_roles: ['executive'],
    auto_approve: false,
    description: 'Above 250,000: an executive whose limit covers the total',
  },
];

export const ruleFor = (total: number): ApprovalRule =>
  approvalRules.find((rule) => total >= rule.min_amount && (rule.max_amount === null || total <= rule.max_amount)) ??
  approvalRules[approvalRules.length - 1];

/** Why this user may not approve an order of this total raised by that requester, or undefined when they may. */
export const approvalRefusal = (user: ErpUser, total: number, requesterId: string): string | undefined => {
  const rule = ruleFor(total);
  if (user.id === requesterId) {
    return 'an order cannot be approved by the user who raised it';
  }
  if (!rule.approver_roles.includes(user.role)) {
    return `${rule.id} (${rule.description}) does not let a ${user.role} approve`;
  }
  if (user.approval_limit < total) {
    return `${user.name}'s approval limit of ${user.approval_limit} is below the total of ${total}`;
  }
  return undefined;
};

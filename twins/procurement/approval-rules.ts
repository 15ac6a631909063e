import type { Company, WorldRecord } from '@libs/synthetic-data';

import type { ErpUser, Role } from './erp-call';

export interface ApprovalRule extends WorldRecord {
  id: string;
  min_amount: number;
  max_amount: number | null;
  approver_roles: Role[];
  auto_approve: boolean;
  description: string;
}

const amount = (value: number): string => value.toLocaleString('en-GB');

/**
 * Who approves an order, by its total; within a tier the approver's own limit must also cover the total. Orders up to
 * the company's auto-approval limit are approved on submission: that amount is the client's, from its bundle.
 */
export const approvalRules = (company: Pick<Company, 'autoApprovalLimit'>): ApprovalRule[] => {
  const auto = company.autoApprovalLimit;
  const tiers = [25_000, 250_000].filter((top) => top > auto);
  const floorOf = (index: number): number => (index === 0 ? auto + 0.01 : tiers[index - 1] + 0.01);
  return [
    {
      id: 'AR-1',
      min_amount: 0,
      max_amount: auto,
      approver_roles: [],
      auto_approve: true,
      description: `Up to ${amount(auto)}: approved on submission`,
    },
    ...tiers.map((top, index): ApprovalRule => ({
      id: `AR-${index + 2}`,
      min_amount: floorOf(index),
      max_amount: top,
      approver_roles: top === 25_000 ? ['buyer', 'approver', 'executive'] : ['approver', 'executive'],
      auto_approve: false,
      description:
        top === 25_000
          ? `Up to ${amount(top)}: a buyer, head of department or executive whose limit covers the total`
          : `Up to ${amount(top)}: a head of department or executive whose limit covers the total`,
    })),
    {
      id: `AR-${tiers.length + 2}`,
      min_amount: floorOf(tiers.length),
      max_amount: null,
      approver_roles: ['executive'],
      auto_approve: false,
      description: `Above ${amount(tiers[tiers.length - 1] ?? auto)}: an executive whose limit covers the total`,
    },
  ];
};

export const ruleFor = (company: Pick<Company, 'autoApprovalLimit'>, total: number): ApprovalRule => {
  const rules = approvalRules(company);
  return (
    rules.find((rule) => total >= rule.min_amount && (rule.max_amount === null || total <= rule.max_amount)) ??
    rules[rules.length - 1]
  );
};

/** Why this user may not approve an order of this total raised by that requester, or undefined when they may. */
export const approvalRefusal = (
  company: Pick<Company, 'autoApprovalLimit'>,
  user: ErpUser,
  total: number,
  requesterId: string,
): string | undefined => {
  const rule = ruleFor(company, total);
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

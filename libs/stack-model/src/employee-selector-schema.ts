import { z } from 'zod';

/**
 * Picks people of the company: an employee id, `agent`, or a role (and department) to choose among; with
 * `min_approval_limit` (a number or an expression over the task's values) only those whose limit covers it, so an
 * instance never names an approver who could not approve the task's order.
 */
export const employeeSelector = z.union([
  z.string().regex(/^(agent|E\d{4})$/, 'must be "agent" or an employee id such as E0004'),
  z
    .object({
      role: z.enum(['requester', 'buyer', 'approver', 'finance', 'executive']),
      department: z.string().optional(),
      title: z.string().optional(),
      min_approval_limit: z.union([z.number(), z.string()]).optional(),
    })
    .strict(),
]);

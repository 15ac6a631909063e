import type { Permission, Role } from '@libs/access';

/**
 * Who may do what, written out from the roles as the compliance requirements define them, independently of the grants
 * table the access guard reads (libs/access/src/roles.ts), so the authorisation matrices compare the two: a grant
 * given to the wrong role, or taken from the right one, fails there.
 *   engineer: ingests and configures stacks
 *   trainer:  runs episodes and rollouts, reads rewards
 *   reviewer: reads everything of its tenant, annotates, signs off; changes nothing else
 *   admin:    everything, and the tenant's keys
 */
export const expectedRoles: Record<Permission, readonly Role[]> = {
  'stacks:read': ['engineer', 'trainer', 'reviewer', 'admin'],
  'stacks:ingest': ['engineer', 'admin'],
  'environments:read': ['engineer', 'trainer', 'reviewer', 'admin'],
  'episodes:run': ['trainer', 'admin'],
  'rollouts:read': ['trainer', 'reviewer', 'admin'],
  'review:read': ['reviewer', 'admin'],
  'review:annotate': ['reviewer', 'admin'],
  'review:sign-off': ['reviewer', 'admin'],
  'audit:read': ['reviewer', 'admin'],
  'keys:manage': ['admin'],
};

/** Whether the requirements let `role` use a route that needs `rule` (`public`: anyone). */
export const mayCall = (role: Role, rule: 'public' | Permission): boolean =>
  rule === 'public' || expectedRoles[rule].includes(role);

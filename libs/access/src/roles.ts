/**
 * Who may do what. A key carries one role in one tenant; a route names the one permission it needs. Roles are sets of
 * permissions so a new route is one permission given to the roles that should have it, in this one table.
 */
export const roles = ['engineer', 'trainer', 'reviewer', 'admin'] as const;
export type Role = (typeof roles)[number];

export const permissions = [
  /** Read stacks and their versions. */
  'stacks:read',
  /** Ingest bundles (new stack versions). */
  'stacks:ingest',
  /** Read the environments and tasks a server hosts. */
  'environments:read',
  /** Start episodes and groups of episodes (training). */
  'episodes:run',
  /** Read rollouts, their trials and rewards. */
  'rollouts:read',
  /** Read review material: episodes as people saw them, verdicts with evidence, annotations, sign-offs. */
  'review:read',
  /** Agree with or dispute a verdict. */
  'review:annotate',
  /** Sign off a rollout. */
  'review:sign-off',
  /** Read the tenant's evidence trail. */
  'audit:read',
  /** Create, list and revoke the tenant's API keys. */
  'keys:manage',
] as const;
export type Permission = (typeof permissions)[number];

const grants: Record<Role, readonly Permission[]> = {
  engineer: ['stacks:read', 'stacks:ingest', 'environments:read'],
  trainer: ['stacks:read', 'environments:read', 'episodes:run', 'rollouts:read'],
  // Reads everything of its tenant, annotates and signs off; changes nothing else.
  reviewer: [
    'stacks:read',
    'environments:read',
    'rollouts:read',
    'review:read',
    'review:annotate',
    'review:sign-off',
    'audit:read',
  ],
  admin: permissions,
};

export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (roles as readonly string[]).includes(value);

export const roleCan = (role: Role, permission: Permission): boolean => grants[role].includes(permission);

/** The permissions of a role, for listings and the authorisation matrix. */
export const permissionsOf = (role: Role): readonly Permission[] => grants[role];

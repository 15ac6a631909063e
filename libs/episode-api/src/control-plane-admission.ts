import { AccessError, AccessMode, principalFor, roleCan } from '@libs/access';
import { ControlPlaneAccessError, ControlPlaneAdmission, EpisodeRequestError } from '@libs/agent-tools';

/** Not found, as for a name no environment has: a key of another tenant learns nothing of what this server hosts. */
export const environmentNotFound = (environment: string): EpisodeRequestError =>
  new EpisodeRequestError(
    'environment_not_found',
    404,
    `environment: no environment "${String(environment).slice(0, 80)}" (GET /v1/environments lists them)`,
  );

/**
 * The episode API's rule for its control-plane routes, for the protocol adapters' routes that do the same things
 * (OpenEnv's reset and session creation start episodes; its health, metadata and schema read an environment): an API
 * key whose role holds the permission, of the tenant whose episodes this server hosts, or `mirror up`'s local user.
 */
export const controlPlaneAdmission =
  (access: AccessMode, hostedTenant: string): ControlPlaneAdmission =>
  async (authorization, permission, environment) => {
    let principal;
    try {
      principal = await principalFor(access, authorization);
    } catch (error) {
      if (error instanceof AccessError) {
        throw new ControlPlaneAccessError(error.status, error.message);
      }
      throw error;
    }
    if (!roleCan(principal.role, permission)) {
      throw new ControlPlaneAccessError(403, `role ${principal.role} may not ${permission}`);
    }
    if (principal.tenantId !== hostedTenant) {
      throw environmentNotFound(environment);
    }
    return { actor: principal.actor, actorKind: principal.role };
  };

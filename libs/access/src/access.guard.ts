import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { ACCESS_RULE, AccessRule, PRINCIPAL } from './access-rules';
import { AccessError, Authenticator, Principal } from './authenticator';
import { roleCan } from './roles';

/**
 * How a server knows who calls: by API key (the api app, always), or as the one local user of `mirror up`, which
 * listens on loopback only and says so when it starts.
 */
export type AccessMode = { kind: 'keys'; authenticator: Authenticator } | { kind: 'local'; principal: Principal };

export const ACCESS_MODE = Symbol('mirror:access-mode');

/**
 * Who an `Authorization` header stands for under an access mode: the key's principal (or an `AccessError`), or the
 * local user. For routes outside Nest's guard (protocol adapters' own), which must be held to the same rule.
 */
export const principalFor = (mode: AccessMode, authorization: string | undefined): Promise<Principal> =>
  mode.kind === 'local' ? Promise.resolve(mode.principal) : mode.authenticator.authenticate(authorization);

@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(ACCESS_MODE) private readonly mode: AccessMode,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) {
      throw new ForbiddenException(`${context.getClass().name}.${context.getHandler().name} declares no access rule`);
    }
    if (rule.kind !== 'permission') {
      return true;
    }
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    const principal = await this.principal(request.headers.authorization);
    if (!roleCan(principal.role, rule.permission)) {
      throw new ForbiddenException(`role ${principal.role} may not ${rule.permission}`);
    }
    (request as { [PRINCIPAL]?: Principal })[PRINCIPAL] = principal;
    return true;
  }

  private async principal(authorization: string | undefined): Promise<Principal> {
    try {
      return await principalFor(this.mode, authorization);
    } catch (error) {
      if (error instanceof AccessError) {
        throw error.status === 401 ? new UnauthorizedException(error.message) : new ForbiddenException(error.message);
      }
      throw error;
    }
  }
}

/**
 * `mirror up`'s single local user: a trainer of the process's tenant, without a key. Only for a server that listens
 * on loopback and says so; anything reachable from elsewhere takes keys.
 */
export const localUser = (tenantId: string): AccessMode => ({
  kind: 'local',
  principal: { tenantId, role: 'trainer', actor: 'local' },
});

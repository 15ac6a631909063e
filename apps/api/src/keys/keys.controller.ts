import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post } from '@nestjs/common';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { ApiKeyRepository } from '@libs/persistence';

import { keyRequest } from './key-request';

/**
 * The tenant's API keys, for its admins: a key is made in the admin's own tenant (never another), shown once, and
 * revoked rather than deleted. The operator's first admin key comes from `mirror keys create` on the database.
 */
@Requires('keys:manage')
@Controller('v1/keys')
export class KeysController {
  constructor(private readonly keys: ApiKeyRepository) {}

  @Post()
  async create(@CurrentPrincipal() principal: Principal, @Body() raw: unknown) {
    const request = keyRequest(raw);
    const { token, ...key } = await this.keys.create(principal.tenantId, request, {
      actor: principal.actor,
      actorKind: principal.role,
    });
    return { ...key, key: token, shown_once: true };
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal) {
    return { keys: await this.keys.list(principal.tenantId) };
  }

  @Delete(':id')
  @HttpCode(200)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const key = await this.keys.revoke(principal.tenantId, id, { actor: principal.actor, actorKind: principal.role });
    if (!key) {
      throw new NotFoundException(`no API key ${id.slice(0, 64)}`);
    }
    return key;
  }
}

import { BadRequestException, Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { RolloutRepository } from '@libs/persistence';

const pageNumber = (name: string, value: string | undefined, fallback: number, max: number): number => {
  if (value === undefined) {
    return fallback;
  }
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max) {
    throw new BadRequestException(`${name} must be an integer from 0 to ${max}`);
  }
  return n;
};

/**
 * Stored rollouts: the list, newest first, and one with its report and every trial (each with its episode id, for
 * `GET`ting or grading the episode). Rollouts are started by `mirror rollout` or, on the api app, by
 * `RolloutStartsController`.
 */
@Controller('v1/rollouts')
export class RolloutsController {
  private readonly rollouts: RolloutRepository;

  // The repository is made here, from the connection the module already provides, so registering this controller
  // is its one line in the module.
  constructor(dataSource: DataSource) {
    this.rollouts = new RolloutRepository(dataSource);
  }

  @Get()
  @Requires('rollouts:read')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query('offset') offset?: string,
    @Query('limit') limit?: string,
  ) {
    const page = {
      offset: pageNumber('offset', offset, 0, 1_000_000),
      limit: Math.max(1, pageNumber('limit', limit, 50, 200)),
    };
    const { rollouts, total } = await this.rollouts.list(principal.tenantId, page);
    return { rollouts, total, ...page };
  }

  @Get(':id')
  @Requires('rollouts:read')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const rollout = await this.rollouts.find(principal.tenantId, id);
    if (!rollout) {
      throw new NotFoundException(`no rollout ${id}`);
    }
    return { ...rollout, episodes: await this.rollouts.episodes(principal.tenantId, id) };
  }
}

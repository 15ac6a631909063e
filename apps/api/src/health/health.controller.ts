import { Controller, Get, HttpException, HttpStatus } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DataSource } from 'typeorm';

import { Public } from '@libs/access';

/**
 * Probes for orchestrators: `/healthz` says the process serves HTTP (restart it when not), `/readyz` that it can do
 * its work — its database answers and no migration is pending — so a load balancer sends it traffic only then.
 */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('healthz')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(): Promise<{ status: 'ready' }> {
    try {
      await this.dataSource.query('SELECT 1');
      if (await this.dataSource.showMigrations()) {
        throw new Error('migrations are pending: run `mirror db migrate`');
      }
    } catch (error) {
      throw new HttpException(
        { error: 'not_ready', message: `not ready: ${(error as Error).message}` },
        HttpStatus.SERVICE_UNAVAILABLE,
      );
    }
    return { status: 'ready' };
  }
}

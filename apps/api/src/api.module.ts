import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { DataSource } from 'typeorm';

import { MirrorConfig, MirrorSettings } from '@libs/config';
import { StackRepository } from '@libs/persistence';
import { RolloutsController } from '@libs/episode-api';
import { MetricsController, RequestTelemetryInterceptor } from '@libs/telemetry';

import { ApiExceptionFilter } from './errors/api-exception.filter';
import { HealthController } from './health/health.controller';
import { ReviewController } from './review/review.controller';
import { StacksController } from './stacks/stacks.controller';
import { StacksService } from './stacks/stacks.service';

/** The control plane. Its database connection is opened (and migrated or checked) by main.ts before Nest boots. */
@Module({})
export class ApiModule {
  static forRoot(config: MirrorConfig, dataSource: DataSource): DynamicModule {
    return {
      module: ApiModule,
      controllers: [StacksController, RolloutsController, HealthController, ReviewController, MetricsController],
      providers: [
        { provide: MirrorSettings, useValue: config },
        { provide: DataSource, useValue: dataSource },
        { provide: StackRepository, useFactory: (ds: DataSource) => new StackRepository(ds), inject: [DataSource] },
        StacksService,
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: RequestTelemetryInterceptor },
      ],
    };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { DataSource } from 'typeorm';

import { ACCESS_MODE, AccessGuard, AccessMode, Authenticator } from '@libs/access';
import { MirrorConfig, MirrorSettings, resolveOperatorKey } from '@libs/config';
import { ApiKeyRepository, RolloutRepository, StackRepository } from '@libs/persistence';
import { RolloutsController, RolloutStartsController } from '@libs/episode-api';
import { RolloutLauncher } from '@libs/rollout-launch';
import { sharedRolloutTaskQueue } from '@libs/workflow-contracts';
import { ReportPrinter, ReviewApiModule } from '@libs/review-api';
import { MetricsAccess, MetricsController, RequestTelemetryInterceptor } from '@libs/telemetry';

import { AuditController } from './audit/audit.controller';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { HealthController } from './health/health.controller';
import { KeysController } from './keys/keys.controller';
import { StacksController } from './stacks/stacks.controller';
import { StacksService } from './stacks/stacks.service';

/**
 * The control plane. Its database connection is opened (and migrated or checked) by main.ts before Nest boots. Every
 * route is behind the access guard: a request acts as the tenant and role of its API key, and a route that declares
 * no access rule is refused. Rollouts it starts are played by the workers polling the shared rollout queue of
 * TEMPORAL_ADDRESS (MIRROR_TASK_QUEUE's, when the workers are given one).
 */
@Module({})
export class ApiModule {
  static forRoot(config: MirrorConfig, dataSource: DataSource): DynamicModule {
    return {
      module: ApiModule,
      imports: [ReviewApiModule.forRoot(dataSource, new ReportPrinter(config.MIRROR_CHROMIUM_PATH))],
      controllers: [
        StacksController,
        RolloutsController,
        RolloutStartsController,
        KeysController,
        AuditController,
        HealthController,
        MetricsController,
      ],
      providers: [
        { provide: MirrorSettings, useValue: config },
        { provide: DataSource, useValue: dataSource },
        { provide: StackRepository, useFactory: (ds: DataSource) => new StackRepository(ds), inject: [DataSource] },
        { provide: ApiKeyRepository, useFactory: (ds: DataSource) => new ApiKeyRepository(ds), inject: [DataSource] },
        {
          provide: ACCESS_MODE,
          useFactory: (keys: ApiKeyRepository): AccessMode => ({
            kind: 'keys',
            authenticator: new Authenticator(keys),
          }),
          inject: [ApiKeyRepository],
        },
        StacksService,
        // Rollouts are handed to the scaled-out workers on their shared queue; Temporal is reached on the first one, so
        // the control plane starts (and serves everything else) without it.
        {
          provide: RolloutLauncher,
          useFactory: (ds: DataSource) =>
            new RolloutLauncher(
              {
                address: config.TEMPORAL_ADDRESS,
                namespace: config.TEMPORAL_NAMESPACE,
                taskQueue: sharedRolloutTaskQueue(config.MIRROR_TASK_QUEUE),
              },
              new RolloutRepository(ds),
            ),
          inject: [DataSource],
        },
        // /metrics: the operator's key, as on the gateway and the episode API (counts over every tenant).
        { provide: MetricsAccess, useValue: { key: resolveOperatorKey(config) } },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: RequestTelemetryInterceptor },
        { provide: APP_GUARD, useClass: AccessGuard },
      ],
    };
  }
}

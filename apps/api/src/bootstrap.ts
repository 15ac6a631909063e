import { INestApplication, Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import * as express from 'express';
import { DataSource } from 'typeorm';

import { MirrorConfig } from '@libs/config';
import { publishOpenApi } from '@libs/episode-api';
import { mountReviewHttp } from '@libs/review-api';
import { bundleLimits } from '@libs/stack-ingestion';

import { ApiModule } from './api.module';

/** Builds the HTTP app; shared by main.ts and the e2e tests so both serve exactly the same thing. */
export const createApiApp = async (
  config: MirrorConfig,
  dataSource: DataSource,
  logger: LoggerService | false = new Logger(),
): Promise<INestApplication> => {
  const app = await NestFactory.create(ApiModule.forRoot(config, dataSource), {
    bodyParser: false,
    logger,
  });
  // Bundles arrive as raw bytes of any type; the ingester decides what they are. Over the limit is a 413.
  app.use('/v1/stacks', express.raw({ type: () => true, limit: bundleLimits.maxTotalBytes }));
  app.use('/v1/keys', express.json({ limit: '16kb' }));
  // The review routes' body reader and the reviewer console at /console.
  mountReviewHttp(app);
  app.enableShutdownHooks();
  publishOpenApi(
    app,
    'Mirror control plane',
    'Stacks: ingest bundles and read their versions; rollouts; API keys. Every route takes an API key as a bearer token.',
  );
  return app;
};

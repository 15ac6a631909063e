import { INestApplication, Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import * as express from 'express';
import { DataSource } from 'typeorm';

import { MirrorConfig } from '@libs/config';
import { publishOpenApi } from '@libs/episode-api';
import { mountReviewHttp } from '@libs/review-api';

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
  // Bundles are read by the ingest route itself, once the access guard has let the request through: an upload without
  // a key (or with one that may not ingest) is refused before a byte of it is read, and its connection closed rather
  // than drained, so a refused 50 MB upload costs the server nothing.
  app.use('/v1/stacks', (request: express.Request, response: express.Response, next: express.NextFunction) => {
    if (request.method === 'POST') {
      response.setHeader('Connection', 'close');
    }
    next();
  });
  app.use('/v1/keys', express.json({ limit: '16kb' }));
  app.use('/v1/rollouts', express.json({ limit: '64kb' }));
  // The review routes' body reader and the reviewer console at /console.
  mountReviewHttp(app);
  app.enableShutdownHooks();
  publishOpenApi(
    app,
    'Mirror control plane',
    'Stacks: ingest bundles and read their versions; rollouts: start them on the workers and read them; API keys. Every route takes an API key as a bearer token.',
  );
  return app;
};

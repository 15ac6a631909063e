import { INestApplication, Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import * as express from 'express';
import { DataSource } from 'typeorm';

import { MirrorConfig } from '@libs/config';
import { bundleLimits } from '@libs/stack-ingestion';

import { ApiModule } from './api.module';
import type { EpisodeApiOptions } from './episodes/episodes.module';

/** The episode API's own routes (not the adapters' `/mcp`): their bodies are read as text and parsed by the route. */
const episodeRoute = (path: string): boolean =>
  (path.startsWith('/v1/episodes') || path.startsWith('/v1/environments')) && !path.endsWith('/mcp');

/** Builds the HTTP app; shared by main.ts and the e2e tests so both serve exactly the same thing. */
export const createApiApp = async (
  config: MirrorConfig,
  dataSource: DataSource,
  logger: LoggerService | false = new Logger(),
  episodes?: EpisodeApiOptions,
): Promise<INestApplication> => {
  const app = await NestFactory.create(ApiModule.forRoot(config, dataSource, episodes), {
    bodyParser: false,
    logger,
  });
  // Bundles arrive as raw bytes of any type; the ingester decides what they are. Over the limit is a 413.
  app.use('/v1/stacks', express.raw({ type: () => true, limit: bundleLimits.maxTotalBytes }));
  const text = express.text({ type: () => true, limit: '1mb' });
  app.use((request: express.Request, response: express.Response, next: express.NextFunction) =>
    episodeRoute(request.path) ? text(request, response, next) : next(),
  );
  app.enableShutdownHooks();
  // The control plane's own OpenAPI document, from the controllers' decorators.
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Mirror control plane')
      .setDescription('Stacks, and (under `mirror up`) the episode API outside agents and trainers use.')
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: "The episode's own token" })
      .build(),
  );
  app.getHttpAdapter().get('/openapi.json', (_request: express.Request, response: express.Response) => {
    response.json(document);
  });
  return app;
};

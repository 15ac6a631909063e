import { DynamicModule, INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import * as express from 'express';
import { DataSource } from 'typeorm';

import type { AccessMode } from '@libs/access';
import type { EpisodeHost } from '@libs/episode-host';
import { agentToolkit, LiveEpisodeRegistry } from '@libs/live-episodes';
import { LiveEpisodeRepository } from '@libs/persistence';

import { controlPlaneAdmission } from './control-plane-admission';
import { EpisodeApiOptions, EpisodesModule } from './episodes.module';

/** The episode API's own routes (not the adapters' `/mcp`): their bodies are read as text and parsed by the route. */
const episodeRoute = (path: string): boolean =>
  (path.startsWith('/v1/episodes') || path.startsWith('/v1/environments')) && !path.endsWith('/mcp');

/** The episode API's routes read their bodies as text, so a body that is not JSON is the route's 400 naming why. */
const readEpisodeBodies = (app: INestApplication): void => {
  const text = express.text({ type: () => true, limit: '1mb' });
  app.use((request: express.Request, response: express.Response, next: express.NextFunction) =>
    episodeRoute(request.path) ? text(request, response, next) : next(),
  );
};

/** Publishes an app's own OpenAPI document, made from its controllers' decorators, at `/openapi.json`. */
export const publishOpenApi = (app: INestApplication, title: string, description: string): void => {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle(title)
      .setDescription(description)
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The episode’s own token' })
      .build(),
  );
  app.getHttpAdapter().get('/openapi.json', (_request: express.Request, response: express.Response) => {
    response.json(document);
  });
};

/** The control plane `mirror up` serves: the episode API and its protocol adapters, over one registry. */
export const createEpisodeApiApp = async (
  options: EpisodeApiOptions,
  dataSource: DataSource,
  logger: LoggerService | LogLevel[] | false,
): Promise<INestApplication> => {
  const app = await NestFactory.create(EpisodesModule.forRoot(options, dataSource), { bodyParser: false, logger });
  const admit = controlPlaneAdmission(options.access, options.registry.tenantId);
  for (const mount of options.protocols) {
    mount(app, options.registry, admit);
  }
  readEpisodeBodies(app);
  publishOpenApi(
    app,
    'Mirror control plane',
    'The episode API outside agents and trainers use: environments and tasks, episodes and groups, tool calls in ' +
      'OpenAI Chat and Responses shapes, trajectories and grades. Episode routes take the episode’s own token.',
  );
  return app;
};

/**
 * The episode API over a running host, as `mirror up` serves it: a live-episode registry with the host's TTL and
 * capacity settings, and the app with the given protocol adapters mounted. The caller listens and, when done, closes
 * the app and then the registry. `access` says who may call the control-plane routes; `modules` are served beside.
 */
export const episodeApiOf = async (
  host: EpisodeHost,
  protocols: EpisodeApiOptions['protocols'],
  logger: LoggerService | LogLevel[] | false,
  access: AccessMode,
  modules: readonly DynamicModule[] = [],
): Promise<{ app: INestApplication; registry: LiveEpisodeRegistry }> => {
  const registry = new LiveEpisodeRegistry(host, new LiveEpisodeRepository(host.dataSource), agentToolkit, {
    tenantId: host.config.MIRROR_TENANT,
    ttlSeconds: host.config.MIRROR_EPISODE_TTL_SECONDS,
    maxLive: host.config.MIRROR_MAX_LIVE_EPISODES,
  });
  try {
    const app = await createEpisodeApiApp(
      { registry, toolkit: agentToolkit, protocols, config: host.config, access, modules },
      host.dataSource,
      logger,
    );
    return { app, registry };
  } catch (error) {
    await registry.close();
    throw error;
  }
};

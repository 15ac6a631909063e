import { randomUUID } from 'node:crypto';

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import { EpisodeAccessError, EpisodeRequestError } from '@libs/agent-tools';
import { EpisodeInfrastructureError } from '@libs/episode-runs';

/** Errors of the episode API as its contract has them: `{ error: { code, message, episode_id? } }` with a 4xx. */
@Catch()
export class EpisodeErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(EpisodeErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const params = http.getRequest<Request>().params as Record<string, string | undefined>;
    const episodeId = typeof params.id === 'string' ? params.id.slice(0, 64) : undefined;
    const send = (status: number, code: string, message: string) =>
      response
        .status(status)
        .json({ error: { code, message, ...(episodeId !== undefined ? { episode_id: episodeId } : {}) } });
    if (error instanceof EpisodeAccessError || error instanceof EpisodeRequestError) {
      if (error instanceof EpisodeRequestError && error.retryAfterSeconds !== undefined) {
        response.setHeader('Retry-After', String(error.retryAfterSeconds));
      }
      send(error.status, error.code, error.message);
      return;
    }
    if (error instanceof EpisodeInfrastructureError) {
      this.logger.error(error.message);
      response.setHeader('Retry-After', '5');
      send(503, 'infrastructure_unavailable', error.message);
      return;
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      send(status, (HttpStatus[status] ?? 'error').toLowerCase(), error.message);
      return;
    }
    const errorId = randomUUID();
    this.logger.error(`${errorId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    send(500, 'internal_error', `internal error ${errorId}`);
  }
}

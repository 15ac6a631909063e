import {
  CallHandler,
  Controller,
  ExecutionContext,
  Get,
  Header,
  Headers,
  Injectable,
  NestInterceptor,
  Optional,
  Res,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { Observable, tap } from 'rxjs';

import { Public } from '@libs/access';
import { MirrorSettings } from '@libs/config';

import { callerTraced, episodeContext } from './episode-trace';
import { withLogFields } from './json-logger';
import { metricsText, mirrorMetrics } from './metrics';
import { MetricsAccess, metricsAllowed } from './metrics-access';
import { hasTrace, traceContextOf } from './trace-headers';

/** The episode a request on `/v1/episodes/{id}…` names (the episode API's routes). */
const episodeOf = (request: Request): string | undefined => {
  const id = (request.params as Record<string, unknown> | undefined)?.id;
  return request.path.startsWith('/v1/episodes/') && typeof id === 'string' ? id.slice(0, 64) : undefined;
};

/**
 * Every request of a Nest app in a trace: a request on an episode is a span in the episode's trace (the caller's
 * `traceparent` its parent when it sends one); any other request runs in the trace the caller names, if any, so an
 * agent that starts an episode with its `traceparent` becomes the parent of the episode's root. Log lines written
 * while it runs carry the tenant and the episode.
 */
@Injectable()
export class RequestTelemetryInterceptor implements NestInterceptor {
  constructor(private readonly settings: MirrorSettings) {}

  intercept(executionContext: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (executionContext.getType() !== 'http') {
      return next.handle();
    }
    const request = executionContext.switchToHttp().getRequest<Request>();
    const given = traceContextOf(request.headers);
    const episodeId = episodeOf(request);
    const fields = { tenantId: this.settings.MIRROR_TENANT, ...(episodeId ? { episodeId } : {}) };
    const response = executionContext.switchToHttp().getResponse<Response>();
    response.once('close', () => {
      if (response.statusCode >= 500) {
        mirrorMetrics.errors.inc({ component: 'api', kind: 'http_5xx' });
      }
    });
    if (!episodeId) {
      return context.with(given, () => withLogFields(fields, () => next.handle()));
    }
    const parent = hasTrace(given) ? callerTraced(given) : episodeContext(episodeId, ROOT_CONTEXT);
    const route = `${request.method} ${(request.route as { path?: string } | undefined)?.path ?? request.path}`;
    const span = trace.getTracer('mirror').startSpan(
      route,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'mirror.episode.id': episodeId,
          'mirror.tenant.id': fields.tenantId,
        },
      },
      parent,
    );
    response.once('close', () => {
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    return context.with(trace.setSpan(parent, span), () =>
      withLogFields(fields, () =>
        next.handle().pipe(
          tap({
            error: (error: unknown) => span.recordException(error as Error),
          }),
        ),
      ),
    );
  }
}

/**
 * Prometheus scrapes the process here: counts and timings, never any episode's content. With a `MetricsAccess` key,
 * only its holder (a bearer token) reads them.
 */
// Open to the access guard: the controller checks the operator key itself, the same key in every process.
@Public()
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(@Optional() private readonly access?: MetricsAccess) {}

  @Get('metrics')
  @Header('cache-control', 'no-store')
  async metrics(@Headers('authorization') authorization: string | undefined, @Res() response: Response): Promise<void> {
    if (!metricsAllowed(authorization, this.access?.key)) {
      response.status(401).json({ error: { code: 'unauthorized', message: '/metrics needs the operator key' } });
      return;
    }
    const { contentType, body } = await metricsText();
    response.type(contentType).send(body);
  }
}

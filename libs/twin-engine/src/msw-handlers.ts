import { delay, getResponse, http, HttpHandler, HttpResponse } from 'msw';

import { Episode } from './episode';
import { serializeBody, TwinRequest, TwinResponse } from './twin-http';

const relativePath = (url: URL, basePath: string): string =>
  url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) || '/' : url.pathname;

const toTwinRequest = async (request: Request, basePath: string): Promise<TwinRequest> => {
  const url = new URL(request.url);
  const path = relativePath(url, basePath);
  const body =
    request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
  return {
    method: request.method,
    path,
    query: url.searchParams,
    search: url.search.slice(1),
    headers: Object.fromEntries(request.headers),
    body,
  };
};

const toResponse = async (response: TwinResponse): Promise<Response> => {
  if (response.delayMs) {
    await delay(response.delayMs);
  }
  return new HttpResponse(serializeBody(response) ?? null, { status: response.status, headers: response.headers });
};

const mswPath = (path: string): string =>
  path.split('#')[0].replace(/\{([^}]+)\}/g, (_, name: string) => `:${name.replace(/[^A-Za-z0-9_]/g, '_')}`);

export interface EpisodeHandlerOptions {
  /** Base URL per service; defaults to the service's first server URL (the production address). */
  baseUrls?: Record<string, string>;
}

/**
 * MSW request handlers for one episode, so a Node agent or a user's own tests can `setupServer(...handlers)` and call
 * the production base URLs unchanged. Each operation has its own handler; per service one dispatcher routes first
 * (radix tree) and hands the request to that one handler, because MSW alone tries handlers in order.
 */
export const episodeHandlers = (episode: Episode, options: EpisodeHandlerOptions = {}): HttpHandler[] =>
  [...episode.twin.services.values()].flatMap((service) => {
    const base = (options.baseUrls?.[service.service.name] ?? service.service.servers[0] ?? '').replace(/\/+$/, '');
    if (!/^https?:\/\//.test(base)) {
      return [];
    }
    const basePath = new URL(base).pathname.replace(/\/+$/, '');
    const perOperation = service.plans.map((plan) =>
      http[plan.operation.method === 'trace' ? 'all' : plan.operation.method](
        `${base}${mswPath(plan.operation.path)}`,
        async ({ request }) =>
          toResponse(
            await episode.handle(
              service.service.name,
              await toTwinRequest(request, basePath),
              request.url.split('?')[0],
            ),
          ),
      ),
    );
    const dispatcher = http.all(`${base}/*`, async ({ request }) => {
      const match = service.route(request.method, relativePath(new URL(request.url), basePath));
      if (!('plan' in match)) {
        return toResponse(match);
      }
      return getResponse([perOperation[match.plan.index]], request);
    });
    return [dispatcher];
  });

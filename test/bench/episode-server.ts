import * as path from 'node:path';

import { ServiceLog } from '@libs/embedded-services';
import { localUser } from '@libs/access';
import { episodeApiOf } from '@libs/episode-api';
import { startEpisodeHost } from '@libs/episode-host';
import { mountEpisodeProtocols } from '@libs/episode-protocols';
import { ingestStack } from '@libs/stack-ingestion';

/**
 * The episode benchmark's server: one bundle served as `mirror up` serves it (the same host, registry, API app and
 * protocol mounts, embedded PGlite and Temporal unless DATABASE_URL / TEMPORAL_ADDRESS), in its own process so it can
 * be pinned to its own core. It talks to the benchmark over IPC: the ready URLs, and on request an episode's bare
 * gateway endpoint for a service (what the agent's tools call), which the API never hands out, and its memory.
 */
type Request = { id: number; kind: 'endpoint'; episodeId: string; service: string } | { id: number; kind: 'memory' };

const main = async (): Promise<void> => {
  const folder = path.resolve(process.argv[2]);
  const { model, version } = await ingestStack({ kind: 'path', path: folder });
  const services: string[] = [];
  const log: ServiceLog = { log: (message) => services.push(message) };
  const host = await startEpisodeHost([{ id: path.basename(folder), path: folder, model, version }], log, {
    taskQueue: `mirror-bench-${process.pid}`,
  });
  const { app, registry } = await episodeApiOf(
    host,
    [(api, port, admit) => mountEpisodeProtocols(api, port, admit)],
    ['error', 'warn'],
    localUser(host.config.MIRROR_TENANT),
  );
  await app.listen(0, '127.0.0.1');
  const api = (await app.getUrl()).replace('[::1]', '127.0.0.1');

  process.on('message', (request: Request) => {
    void (async () => {
      if (request.kind === 'memory') {
        process.send?.({ id: request.id, rssMb: process.memoryUsage().rss / 2 ** 20 });
        return;
      }
      const episode = await host.engine.episode(host.config.MIRROR_TENANT, request.episodeId);
      const service = episode.twin.services.get(request.service);
      process.send?.({
        id: request.id,
        baseUrl: `${host.gatewayUrl}/e/${episode.id}/${request.service}${service?.basePath ?? ''}`,
        token: episode.agentTokenFor(request.service),
      });
    })();
  });
  process.send?.({
    ready: { api, gateway: host.gatewayUrl, maxLive: host.config.MIRROR_MAX_LIVE_EPISODES, services },
  });
  await new Promise<void>((resolve) => process.once('SIGTERM', resolve));
  await app.close().catch(() => undefined);
  await registry.close();
  await host.stop();
  process.exit(0);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

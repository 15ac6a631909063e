import * as fs from 'node:fs';
import * as path from 'node:path';

import { Command } from 'commander';

import type { AccessMode } from '@libs/access';
import { silentLog, stderrLog, stopSignal } from '@libs/embedded-services';
import { episodeApiOf } from '@libs/episode-api';
import { loadConfig } from '@libs/config';
import { HostedBundle, startEpisodeHost } from '@libs/episode-host';
import { mountReviewHttp, ReportPrinter, ReviewApiModule } from '@libs/review-api';
import { ingestStack } from '@libs/stack-ingestion';
import { UsageError } from '@cli/cli-output';
import { integer, lenientOption } from '@cli/command-arguments';
import { episodeProtocols } from '@cli/episode-protocols';

/**
 * Local single-user mode: the person at this machine runs episodes and reviews them, so they hold every permission of
 * the process's tenant (this app serves no key or ingest routes), and their annotations are recorded as `local`, admin.
 * Only for a server that listens on loopback and says so; anything reachable from elsewhere takes keys.
 */
const localOwner = (tenantId: string): AccessMode => ({
  kind: 'local',
  principal: { tenantId, role: 'admin', actor: 'local' },
});

interface UpOptions {
  lenient?: boolean;
  port: number;
  json?: boolean;
}

/** Each bundle an environment, named for its folder: two bundles of one name would be one environment. */
const hostedBundles = async (paths: string[], lenient: boolean): Promise<HostedBundle[]> => {
  const targets = paths.length > 0 ? paths : fs.existsSync('mirror.yaml') ? ['.'] : [];
  if (targets.length === 0) {
    throw new UsageError('name at least one bundle folder (or run mirror up in one)');
  }
  const bundles: HostedBundle[] = [];
  for (const target of targets) {
    const folder = path.resolve(target);
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) {
      throw new UsageError(`${target}: not a bundle folder`);
    }
    const id = path.basename(folder);
    if (bundles.some((b) => b.id === id)) {
      throw new UsageError(
        `${target}: another bundle is already named ${id} (environments are named for their folder)`,
      );
    }
    const { model, version } = await ingestStack({ kind: 'path', path: folder, lenient });
    bundles.push({ id, path: folder, model, version });
  }
  return bundles;
};

/**
 * `mirror up`: everything trainers, outside agents and reviewers need, in one process, until SIGINT or SIGTERM: the
 * episode API (and its protocol adapters), the review API and the reviewer console at /console on --port, the twins'
 * gateway on the next port, a worker, and PostgreSQL and Temporal (embedded unless DATABASE_URL / TEMPORAL_ADDRESS).
 * Prints one line once ready.
 */
export const upCommand = (): Command =>
  new Command('up')
    .description(
      'serve bundles as environments for outside agents and trainers (the episode API, twins and a worker) and the ' +
        'reviewer console over what they did',
    )
    .argument('[bundles...]', 'bundle folders, each an environment named for its folder (default: this folder)')
    .option(
      '-p, --port <port>',
      'the API’s port; the gateway takes the next one (0: both random)',
      integer('--port', 0, 65000),
      8080,
    )
    .option('--json', 'print the ready line as JSON: {"api","gateway","openapi","console","environments"}')
    .addOption(lenientOption())
    .action(async (paths: string[], options: UpOptions) => {
      const bundles = await hostedBundles(paths, options.lenient === true);
      const log = options.json ? silentLog : stderrLog;
      const host = await startEpisodeHost(bundles, log, {
        gatewayPort: options.port === 0 ? 0 : options.port + 1,
        taskQueue: `mirror-up-${process.pid}`,
        concurrency: loadConfig().MIRROR_MAX_LIVE_EPISODES,
      });
      let served: Awaited<ReturnType<typeof episodeApiOf>> | undefined;
      try {
        // Local single-user mode, explicitly: loopback only, the one user the owner of this process's tenant. A shared
        // deployment serves the api app, which takes API keys.
        served = await episodeApiOf(host, episodeProtocols, ['error', 'warn'], localOwner(host.config.MIRROR_TENANT), [
          ReviewApiModule.forRoot(host.dataSource, new ReportPrinter(host.config.MIRROR_CHROMIUM_PATH)),
        ]);
        const { app } = served;
        mountReviewHttp(app);
        await app.listen(options.port, '127.0.0.1');
        const api = (await app.getUrl()).replace('[::1]', '127.0.0.1');
        const ready = {
          api,
          gateway: host.gatewayUrl,
          openapi: `${api}/openapi.json`,
          console: `${api}/console/`,
          environments: bundles.map((b) => b.id),
        };
        process.stdout.write(
          options.json
            ? `${JSON.stringify(ready)}\n`
            : `Mirror is up: API ${ready.api} (OpenAPI ${ready.openapi}), gateway ${ready.gateway}, environments ${ready.environments.join(', ')}. Reviewer console: ${ready.console}. Local mode: loopback only, no API keys. Ctrl-C stops it.\n`,
        );
        await stopSignal('mirror up');
      } finally {
        // The API first (no new episodes), then the live episodes, then the host's services, newest first.
        await served?.app.close().catch(() => undefined);
        await served?.registry.close();
        await host.stop();
      }
    });

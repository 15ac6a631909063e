import { AddressInfo } from 'node:net';
import { Server } from 'node:http';

import { Command, InvalidArgumentError } from 'commander';

import { loadConfig, resolveOperatorKey } from '@libs/config';
import { commandLineActor } from '@libs/evidence-trail';
import { describePlace } from '@libs/openapi-schemas';
import { silentLog, stderrLog, stopSignal } from '@libs/embedded-services';
import {
  EpisodeCallLog,
  EpisodeCallRepository,
  openDatabase,
  PostgresEpisodeStore,
  RepositoryStackSource,
  StackRepository,
} from '@libs/persistence';
import { ingestStack } from '@libs/stack-ingestion';
import { hashSeed, seededUuid } from '@libs/synthetic-data';
import { createGatewayServer, createServiceOriginServer, EpisodeNotFoundError, TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';
import { lenientOption, outsideRefsOption } from '@cli/command-arguments';

interface ServeOptions {
  lenient?: boolean;
  port: number;
  seed: number;
  records: number;
  json?: boolean;
  allowOutsideRefs?: boolean;
}

const integer =
  (name: string, min: number, max: number) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    }
    return parsed;
  };

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

/**
 * Serves one default episode of a bundle until stopped: the gateway on --port, and each service at the root of the
 * next ports (port + 1, + 2 …; all random with --port 0). The default episode's id follows from (stack version,
 * seed, sizes), so a restarted `serve` finds the same episode and rebuilds it from its event log.
 */
export const serveCommand = (): Command =>
  new Command('serve')
    .description('serve a twin of every service of a bundle, with one default episode')
    .argument('<path>', 'bundle folder, spec file or archive')
    .option(
      '-p, --port <port>',
      'gateway port; services take the ports after it (0: all random)',
      integer('--port', 0, 65000),
      4000,
    )
    .option('-s, --seed <seed>', 'world seed', integer('--seed', 0, 2 ** 32 - 1), 1)
    .option('--records <n>', 'records per resource', integer('--records', 0, 100_000), 20)
    .option('--json', 'print one JSON line with the base URLs once ready')
    .addOption(outsideRefsOption())
    .addOption(lenientOption())
    .action(async (path: string, options: ServeOptions) => {
      const { model, version } = await ingestStack({
        kind: 'path',
        path,
        allowOutsideRefs: options.allowOutsideRefs === true,
        lenient: options.lenient === true,
      });
      const config = loadConfig();
      const log = options.json ? silentLog : stderrLog;
      const database = await openDatabase(config, log);
      // Whatever started is stopped when a later step fails (a port in use): the embedded database would keep the
      // process alive after the error was printed.
      const servers: Server[] = [];
      // Reads leave no event in the log: recorded beside it (and chained), as an episode host records its own.
      const calls = new EpisodeCallLog(new EpisodeCallRepository(database.dataSource), (message) =>
        stderrLog.log(`gateway: ${message}`),
      );
      try {
        const { dataSource } = database;
        const stacks = new StackRepository(dataSource);
        await stacks.saveVersion(config.MIRROR_TENANT, version, model, {
          actor: commandLineActor(),
          actorKind: 'engineer',
        });
        const engine = new TwinEngine(
          new PostgresEpisodeStore(dataSource),
          new RepositoryStackSource(stacks),
          builtInPacks,
          undefined,
          calls,
        );
        const sizes = { recordsPerResource: options.records, childrenPerParent: 3 };
        const episodeId = seededUuid(hashSeed(config.MIRROR_TENANT, version, options.seed, JSON.stringify(sizes)));
        const episode = await engine.episode(config.MIRROR_TENANT, episodeId).catch((error: unknown) => {
          if (error instanceof EpisodeNotFoundError) {
            return engine.createEpisode({
              id: episodeId,
              tenantId: config.MIRROR_TENANT,
              stackVersion: version,
              seed: options.seed,
              sizes,
              // Started here, by whoever runs the command: the evidence trail names them.
              startedBy: { actor: commandLineActor(), actorKind: 'engineer' },
            });
          }
          throw error;
        });
        const errors = { error: (message: string) => stderrLog.log(`gateway: ${message}`) };
        const keyGiven = config.MIRROR_OPERATOR_KEY !== undefined;
        const gateway = createGatewayServer(engine, config.MIRROR_TENANT, errors, resolveOperatorKey(config));
        servers.push(gateway);
        const gatewayPort = await listen(gateway, options.port);
        const services = [];
        let next = options.port === 0 ? 0 : gatewayPort + 1;
        for (const twin of episode.twin.services.values()) {
          const server = createServiceOriginServer(engine, config.MIRROR_TENANT, episodeId, twin.service.name, errors);
          servers.push(server);
          const port = await listen(server, next === 0 ? 0 : next++);
          // The agent's own token, where the service asks for one (a pack's people, a spec's declared security);
          // printed for whoever runs the command, so its issuance is on the evidence trail as theirs.
          const token = twin.takesCredentials
            ? await engine.issueAgentToken(config.MIRROR_TENANT, episodeId, twin.service.name, {
                actor: commandLineActor(),
                actorKind: 'engineer',
              })
            : undefined;
          const places = twin.credentialPlaces();
          services.push({
            name: twin.service.name,
            baseUrl: `http://127.0.0.1:${port}${twin.basePath}`,
            gatewayUrl: `http://127.0.0.1:${gatewayPort}/e/${episodeId}/${twin.service.name}`,
            ...(token ? { agentToken: token } : {}),
            // Where the spec takes it (`[{ in: 'bearer' }]`, `[{ in: 'query', name: 'api_key' }]` …).
            ...(token && places.length > 0 ? { credential: places } : {}),
          });
        }
        if (options.json) {
          process.stdout.write(
            `${JSON.stringify({ episodeId, stackVersion: version, gateway: `http://127.0.0.1:${gatewayPort}`, services })}\n`,
          );
        } else {
          process.stdout.write(
            `Serving ${model.name} (version ${version.slice(0, 12)}), episode ${episodeId} at event ${episode.state.seq}\n`,
          );
          for (const service of services) {
            process.stdout.write(`  ${service.name.padEnd(24)} ${service.baseUrl}\n`);
            if ('agentToken' in service) {
              const where = service.credential ? ` as ${service.credential.map(describePlace).join(' or ')}` : '';
              process.stdout.write(`  ${''.padEnd(24)} token ${service.agentToken}${where}\n`);
            }
          }
          process.stdout.write(
            `  gateway                  http://127.0.0.1:${gatewayPort}/e/{episodeId}/{service}/…\n` +
              `  operator routes          http://127.0.0.1:${gatewayPort}/_mirror/episodes  (Authorization: Bearer $MIRROR_OPERATOR_KEY${keyGiven ? '' : '; unset, so closed this run'})\nPress Ctrl-C to stop.\n`,
          );
        }
        await stopSignal('mirror serve');
      } finally {
        await Promise.all(
          servers.filter((server) => server.listening).map((server) => new Promise((resolve) => server.close(resolve))),
        );
        // What was answered before the servers closed is written before the database goes.
        await calls.close();
        await database.close();
      }
    });

import { AddressInfo } from 'node:net';

import { ingestStack } from '@libs/stack-ingestion';
import { createServiceOriginServer, InMemoryEpisodeStore, StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';

/**
 * One twin service at the root of its own port, as `mirror serve` runs it. The benchmark only reads, so the episode
 * store never sees a write; it is in memory to keep PostgreSQL out of the measured process.
 * argv: spec path, records per resource, optional JSON list of operation ids to keep (the 5-operation variant).
 */
const main = async (): Promise<void> => {
  const [specPath, records, keep] = process.argv.slice(2);
  const { model, version } = await ingestStack({ kind: 'path', path: specPath });
  if (keep) {
    const wanted = new Set(JSON.parse(keep) as string[]);
    for (const service of model.services) {
      service.operations = service.operations.filter((o) => wanted.has(o.id));
      service.resources = service.resources.filter((r) => Object.values(r.operations).some((id) => wanted.has(id)));
    }
  }
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), builtInPacks);
  const episode = await engine.createEpisode({
    tenantId: 'bench',
    stackVersion: version,
    seed: 1,
    sizes: { recordsPerResource: Number(records ?? 20), childrenPerParent: 3 },
  });
  const service = [...episode.twin.services.values()][0];
  const server = createServiceOriginServer(engine, 'bench', episode.id, service.service.name, {
    error: (m) => process.stderr.write(`${m}\n`),
  });
  server.listen(0, '127.0.0.1', () => {
    const firstIds = Object.fromEntries(
      service.shapes.map((shape) => [shape.resource.name, episode.state.ids(shape.key)[0]]),
    );
    process.stdout.write(
      `${JSON.stringify({
        port: (server.address() as AddressInfo).port,
        operations: service.plans.length,
        firstIds,
        // The spec declares bearer auth: the load presents the episode's token, as a client would.
        token: episode.agentTokenFor(service.service.name),
      })}\n`,
    );
  });
};

void main();

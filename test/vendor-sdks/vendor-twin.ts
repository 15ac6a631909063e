import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';
import {
  createServiceOriginServer,
  Episode,
  InMemoryEpisodeStore,
  StaticStackSource,
  TwinEngine,
} from '@libs/twin-engine';
import { sharedSpecsDir } from '@test/support/bundle-fixtures';
import { builtInPacks } from '@twins/index';

/** A twin of one of the shared vendor specs, served at the root of an origin of its own as `mirror serve` does. */
export interface VendorTwin {
  episode: Episode;
  serviceName: string;
  origin: string;
  /** The agent's credential when the twin issues one, else a token the vendor's SDK accepts to send. */
  token: string;
  close(): Promise<void>;
}

/**
 * Serves the twin of the shared spec `name` (as listed in the shared specs' manifest.json): the stack ingested from
 * the vendor's own published spec.
 */
export const serveVendorTwin = (name: string, seed = 7): Promise<VendorTwin> => {
  const dir = sharedSpecsDir();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    specs: { name: string; file: string; kind?: string }[];
  };
  const entry = manifest.specs.find((spec) => spec.name === name);
  if (!entry) {
    throw new Error(`no spec named ${name} in ${dir}/manifest.json`);
  }
  return serveTwin(path.join(dir, entry.file), seed, entry.kind === 'tree');
};

/**
 * Serves the twin of a bundle, spec or pack stack in this process, as `mirror serve` does: one episode on the
 * in-memory store (durability is the engine's subject, tested there against PostgreSQL) and its first service at the
 * root of an origin of its own.
 */
export const serveTwin = async (stackPath: string, seed = 7, allowOutsideRefs = false): Promise<VendorTwin> => {
  const { model, version } = await ingestStack({ kind: 'path', path: stackPath, allowOutsideRefs });
  const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), builtInPacks);
  const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed });
  const [serviceName] = [...episode.twin.services.keys()];
  const server: Server = createServiceOriginServer(engine, 'test', episode.id, serviceName, {
    error: (message) => console.error(message),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    episode,
    serviceName,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token: episode.agentTokenFor(serviceName) ?? 'sdk-test-token',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

export type DriverStep = { step: string; value?: unknown; error?: Record<string, unknown> };

/**
 * Runs a driver under test/vendor-sdks/drivers in plain Node, as a user of an ES-module-only SDK would; each printed
 * line is one step's outcome.
 */
export const runDriver = (driver: string, args: string[]): Promise<Map<string, DriverStep>> =>
  new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(__dirname, 'drivers', driver), ...args],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${driver} failed: ${error.message}\n${stderr}`));
          return;
        }
        const steps = stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as DriverStep);
        resolve(new Map(steps.map((step) => [step.step, step])));
      },
    );
  });

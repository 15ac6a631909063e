import * as fs from 'node:fs';
import * as path from 'node:path';

import * as jsYaml from 'js-yaml';

import { ingestStack } from '@libs/stack-ingestion';

/**
 * One measurement in a fresh process, so peak memory (maxRSS) belongs to that measurement alone.
 * Modes: `mirror` (full ingest), `parse` (read and parse every file the spec spans: the floor any ingester pays),
 * `redocly` (Redocly's bundler, which openapi-typescript and many vendor toolchains use).
 */
const [mode, target, filesList] = process.argv.slice(2);

const measure = async (): Promise<Record<string, number>> => {
  const started = performance.now();
  switch (mode) {
    case 'mirror': {
      const { model, stats } = await ingestStack({ kind: 'path', path: target });
      return {
        ms: performance.now() - started,
        files: stats.files,
        references: stats.references,
        operations: model.services.reduce((sum, s) => sum + s.operations.length, 0),
      };
    }
    case 'parse': {
      const files = JSON.parse(fs.readFileSync(filesList, 'utf8')) as string[];
      for (const file of files) {
        const text = fs.readFileSync(file, 'utf8');
        if (file.endsWith('.json')) {
          JSON.parse(text);
        } else {
          jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
        }
      }
      return { ms: performance.now() - started };
    }
    case 'redocly': {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const redocly = require('@redocly/openapi-core') as {
        bundle(options: { ref: string; config: unknown; dereference: boolean }): Promise<unknown>;
        createConfig(config: object): Promise<unknown>;
      };
      const config = await redocly.createConfig({});
      await redocly.bundle({ ref: path.resolve(target), config, dereference: false });
      return { ms: performance.now() - started };
    }
    default:
      throw new Error(`unknown mode ${mode}`);
  }
};

void measure().then((result) => {
  process.stdout.write(JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
});

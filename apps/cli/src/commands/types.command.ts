import * as fs from 'node:fs';
import * as path from 'node:path';

import { Command } from 'commander';

import { generateServiceTypes, ingestStack } from '@libs/stack-ingestion';
import { UsageError } from '@cli/cli-output';

export const typesCommand = (): Command =>
  new Command('types')
    .description("generate TypeScript types for a service's API with openapi-typescript")
    .argument('<path>', 'bundle folder, spec file or archive')
    .option('-s, --service <name>', 'service to generate (required when the bundle has several)')
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .action(async (bundle: string, options: { service?: string; out?: string }) => {
      const { model } = await ingestStack({ kind: 'path', path: bundle });
      const service = options.service
        ? model.services.find((s) => s.name === options.service)
        : model.services.length === 1
          ? model.services[0]
          : undefined;
      if (!service) {
        throw new UsageError(
          `${options.service ? `no service "${options.service}"` : 'the bundle has several services'}; choose one of: ${model.services.map((s) => s.name).join(', ')}`,
        );
      }
      const source = await generateServiceTypes(service);
      if (options.out) {
        fs.mkdirSync(path.dirname(path.resolve(options.out)), { recursive: true });
        const temporary = `${options.out}.tmp-${process.pid}`;
        fs.writeFileSync(temporary, source);
        fs.renameSync(temporary, options.out);
      } else {
        process.stdout.write(source);
      }
    });

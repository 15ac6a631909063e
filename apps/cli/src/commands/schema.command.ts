import { Command } from 'commander';

import { printJson, UsageError } from '@cli/cli-output';
import { policyJsonSchema } from '@libs/graders';
import { scenarioJsonSchema } from '@libs/scenarios';
import { manifestJsonSchema } from '@libs/stack-ingestion';

/** The JSON Schemas of the files a stack bundle holds, for editors and other tools. */
const schemas: Record<string, () => Record<string, unknown>> = {
  scenario: scenarioJsonSchema,
  policy: policyJsonSchema,
  manifest: manifestJsonSchema,
};

export const schemaCommand = (): Command =>
  new Command('schema')
    .description('print the JSON Schema of a bundle file kind: scenario, policy, manifest')
    .argument('<kind>', Object.keys(schemas).join(', '))
    .action((kind: string) => {
      const schema = schemas[kind];
      if (!schema) {
        throw new UsageError(`no schema "${kind}"; kinds: ${Object.keys(schemas).join(', ')}`);
      }
      printJson(schema());
    });

import { zodToJsonSchema } from 'zod-to-json-schema';

import { scenarioSchema } from '@libs/stack-model';

/** The published JSON Schema of scenario files (`mirror scenario-schema`), for editors and other tools. */
export const scenarioJsonSchema = (): Record<string, unknown> =>
  zodToJsonSchema(scenarioSchema as never, { name: 'MirrorScenario', $refStrategy: 'none' });

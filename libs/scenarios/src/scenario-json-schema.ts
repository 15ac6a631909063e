import { zodToJsonSchema } from 'zod-to-json-schema';

import { scenarioSchema } from './scenario-schema';

/** The published JSON Schema of scenario files (`mirror scenario-schema`), for editors and other tools. */
export const scenarioJsonSchema = (): Record<string, unknown> =>
  zodToJsonSchema(scenarioSchema as never, { name: 'MirrorScenario', $refStrategy: 'none' });

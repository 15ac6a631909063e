import { zodToJsonSchema } from 'zod-to-json-schema';

import { policySetSchema } from '@libs/stack-model';

/** The published JSON Schema of policy sets (`mirror schema policy`), for editors and other tools. */
export const policyJsonSchema = (): Record<string, unknown> =>
  zodToJsonSchema(policySetSchema as never, { name: 'MirrorPolicySet', $refStrategy: 'none' });

import { zodToJsonSchema } from 'zod-to-json-schema';

import { stackManifestSchema } from './stack-manifest';

/** The published JSON Schema of `mirror.yaml` (`mirror schema manifest`), for editors and other tools. */
export const manifestJsonSchema = (): Record<string, unknown> =>
  zodToJsonSchema(stackManifestSchema as never, { name: 'MirrorManifest', $refStrategy: 'none' });

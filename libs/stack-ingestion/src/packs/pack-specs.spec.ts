import * as path from 'node:path';

import { DirectoryBundle, SourceLocator } from '@libs/bundle-documents';

import { ingestStack } from '../ingest-stack';
import { loadService } from '../openapi/service-loader';
import { builtInPackSpecs } from './pack-specs';

const examples = path.resolve(__dirname, '..', '..', '..', '..', 'examples');

/** Real: the built-in packs' own specs and an example bundle that uses them, from disk. Mocked: nothing. */
describe('built-in packs’ specs', () => {
  it('keeps what ingestion says about a pack’s own spec for Mirror’s developers: counted here, not shown to clients', async () => {
    const counts: Record<string, number> = {};
    for (const [pack, spec] of builtInPackSpecs()) {
      const files = new DirectoryBundle(spec.folder, true);
      const loaded = await loadService(files, new SourceLocator(files), { name: pack, entry: spec.entry }, true);
      counts[pack] = loaded.warnings.length;
    }
    // A change here is a pack spec that got better or worse: fix the spec, or update the count knowingly.
    expect(counts).toEqual({ slack: 28, email: 0, procurement: 0 });

    const { model } = await ingestStack({ kind: 'path', path: path.join(examples, 'acme-manufacturing') });
    expect(model.services.map((service) => service.pack)).toEqual(['slack', 'email', 'procurement']);
    expect(model.warnings).toEqual([]);
  });
});

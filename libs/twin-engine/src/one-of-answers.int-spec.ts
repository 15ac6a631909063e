import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { DocumentValidators } from '@libs/openapi-schemas';
import { ingestStack } from '@libs/stack-ingestion';

import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { serializeBody } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

/**
 * Real: ingestion and the engine, over a spec written for the test whose create answers a `oneOf` of one record
 * under `widget` or several under `widgets`; episodes in memory (durability is not the subject).
 */
describe('an answer whose schema is a oneOf of envelopes', () => {
  it('matches exactly one alternative, whichever alternative the world seed would have drawn', async () => {
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'test', 'fixtures', 'fidelity', 'wire', 'one-of-envelope.yaml'),
    });
    const service = model.services[0];
    const create = service.operations.find((operation) => operation.id === 'createWidget');
    const pointer = create?.responses.find((response) => response.status === '202')?.content['application/json'];
    const validate = DocumentValidators.of(service.document, service.dialect).validator(pointer as string);
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    // A synthesized envelope draws its alternative from the seed: several seeds draw both.
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed });
      const response = await episode.handle(
        service.name,
        {
          method: 'POST',
          path: '/widgets',
          query: new URLSearchParams(),
          search: '',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: Buffer.from(JSON.stringify({ name: 'gear' })),
        },
        'http://twin.test/widgets',
      );
      expect(response.status).toBe(202);
      const body = JSON.parse(String(serializeBody(response))) as Record<string, unknown>;
      expect(body.widget).toMatchObject({ name: 'gear' });
      expect(Object.keys(body).sort()).toEqual(['links', 'widget']);
      expect({ seed, valid: validate(body), errors: validate.errors ?? null }).toEqual({
        seed,
        valid: true,
        errors: null,
      });
    }
  });
});

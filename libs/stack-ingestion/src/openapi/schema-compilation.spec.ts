import * as path from 'node:path';

import { ingestStack } from '../ingest-stack';

const fixture = (name: string): string =>
  path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'fidelity', 'robust', name);

/** Real: ingestion of specs written for the test, from disk. Mocked: nothing. */
describe('ingesting schemas the twin must compile', () => {
  it('ingests a spec whose example data holds a templated $id, with no warning about it', async () => {
    const { model } = await ingestStack({ kind: 'path', path: fixture('id-in-examples.yaml') });
    expect(model.services[0].operations).toHaveLength(2);
    expect(model.warnings).toEqual([]);
  });

  it('names a schema identity ajv refuses at its line, instead of refusing the spec', async () => {
    const { model } = await ingestStack({ kind: 'path', path: fixture('id-in-schema.yaml') });
    expect(model.warnings).toEqual([
      expect.objectContaining({
        location: expect.stringMatching(/^id-in-schema\.yaml:\d+#\/components\/schemas\/Widget\/\$id$/),
        message: expect.stringMatching(
          /^the schema's \$id "https:\/\/\{host\}\/schemas\/widget" is refused .*the twin ignores it$/,
        ),
      }),
    ]);
  });

  it('reads a property required twice once, with a located warning', async () => {
    const { model } = await ingestStack({ kind: 'path', path: fixture('duplicate-required.yaml') });
    expect(model.warnings).toEqual([
      expect.objectContaining({
        location: 'duplicate-required.yaml:42#/components/schemas/Ticket/required',
        message: '"required" names a property twice; read once',
      }),
    ]);
  });
});

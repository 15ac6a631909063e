import * as path from 'node:path';

import { IngestionError } from '@libs/bundle-documents';

import { ingestStack } from '../ingest-stack';

const fixture = (name: string): string => path.resolve(__dirname, '../../../../test/fixtures/fidelity/robust', name);

const problemsOf = async (promise: Promise<unknown>): Promise<string[]> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof IngestionError) {
      return error.problems.map((p) => `${p.file}#${p.pointer}: ${p.message}`);
    }
    throw error;
  }
  return [];
};

describe('dangling $refs', () => {
  it('are refused by default, and on optional parts the refusal says --lenient would degrade them', async () => {
    const problems = await problemsOf(ingestStack({ kind: 'path', path: fixture('dangling-refs.yaml') }));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /#\/components\/schemas\/Note\/properties\/author\/\$ref: .*does not resolve.*optional property "author": --lenient degrades it/,
        ),
        expect.stringMatching(/#\/paths\/~1notes\/post\/responses\/404\/\$ref: .*404 response: --lenient degrades it/),
      ]),
    );
  });

  it('under --lenient become any-value schemas and bodiless responses, each with a located warning', async () => {
    const { model } = await ingestStack({ kind: 'path', path: fixture('dangling-refs.yaml'), lenient: true });
    const warnings = model.warnings.map((w) => `${w.location}: ${w.message}`);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /dangling-refs\.yaml:\d+#\/components\/schemas\/Note\/properties\/author\/\$ref: .*\(--lenient\)/,
        ),
        expect.stringMatching(/dangling-refs\.yaml:\d+#\/paths\/~1notes\/post\/responses\/404\/\$ref: .*\(--lenient\)/),
      ]),
    );
    const document = model.services[0].document as {
      components: { schemas: { Note: { properties: { author: unknown } } } };
    };
    expect(document.components.schemas.Note.properties.author).toEqual({});
  });

  it('stay refused under --lenient where the part is required', async () => {
    const problems = await problemsOf(
      ingestStack({ kind: 'path', path: fixture('dangling-required.yaml'), lenient: true }),
    );
    expect(problems).toEqual([expect.stringMatching(/properties\/author\/\$ref: .*does not resolve[^(]*$/)]);
  });
});

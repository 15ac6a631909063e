import { writeBundle } from '@test/support/bundle-fixtures';
import { DirectoryBundle, SourceLocator, IngestionError } from '@libs/bundle-documents';

import { originOf, ReferenceBundler } from './reference-bundler';

const bundle = (files: Record<string, string>, entry = 'api.yaml', confined = true) => {
  const dir = writeBundle(files);
  const source = new DirectoryBundle(dir, confined);
  return new ReferenceBundler(source, new SourceLocator(source), { schemaSection: 'components', confined }).bundle(
    entry,
  );
};

const problemsOf = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    if (error instanceof IngestionError) {
      return error.problems;
    }
    throw error;
  }
  throw new Error('expected an IngestionError');
};

describe(ReferenceBundler.name, () => {
  it('hoists external schemas under their own names and keeps internal references', () => {
    const sut = bundle({
      'api.yaml': `openapi: 3.0.0
paths:
  /pets:
    get:
      parameters:
        - $ref: 'parts/params.yaml#/limit'
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                $ref: 'models/Pet.yaml'
components:
  schemas:
    Local:
      $ref: '#/components/schemas/Other'
    Other: { type: string }
`,
      'parts/params.yaml': 'limit: { name: limit, in: query, schema: { $ref: "../models/Limit.yaml" } }\n',
      'models/Pet.yaml': 'type: object\nproperties:\n  owner: { $ref: "Owner.yaml" }\n',
      'models/Owner.yaml': 'type: object\nproperties:\n  pets: { type: array, items: { $ref: "Pet.yaml" } }\n',
      'models/Limit.yaml': 'type: integer\n',
    });

    const document = sut.document as any;
    expect(document.paths['/pets'].get.parameters[0]).toEqual({
      name: 'limit',
      in: 'query',
      schema: { $ref: '#/components/schemas/Limit' },
    });
    expect(document.paths['/pets'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Pet',
    });
    // The cycle Pet → Owner → Pet stays a cycle of references instead of an infinite object.
    expect(document.components.schemas.Owner.properties.pets.items).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(document.components.schemas.Local).toEqual({ $ref: '#/components/schemas/Other' });
    expect(sut.files).toEqual([
      'api.yaml',
      'parts/params.yaml',
      'models/Limit.yaml',
      'models/Pet.yaml',
      'models/Owner.yaml',
    ]);
  });

  it('renames a hoisted schema whose name is already taken', () => {
    const sut = bundle({
      'api.yaml': `openapi: 3.0.0
paths: {}
components:
  schemas:
    Pet: { type: string }
    Wrapper: { $ref: 'Pet.yaml' }
`,
      'Pet.yaml': 'type: object\n',
    });
    expect((sut.document as any).components.schemas.Wrapper).toEqual({ $ref: '#/components/schemas/Pet_2' });
    expect((sut.document as any).components.schemas.Pet_2).toEqual({ type: 'object' });
  });

  it('resolves an example that is wholly a reference but never looks inside example data', () => {
    const sut = bundle({
      'api.yaml': `openapi: 3.0.0
paths: {}
components:
  schemas:
    Doc:
      type: object
      example: { $ref: 'examples.yaml#/doc' }
      default: { nested: { $ref: 'not-a-file.yaml' } }
      properties:
        $ref: { type: string }
`,
      'examples.yaml': 'doc: { name: from a file, link: { $ref: not-resolved.yaml } }\n',
    });
    const doc = (sut.document as any).components.schemas.Doc;
    expect(doc.example).toEqual({ name: 'from a file', link: { $ref: 'not-resolved.yaml' } });
    expect(doc.default).toEqual({ nested: { $ref: 'not-a-file.yaml' } });
    expect(doc.properties.$ref).toEqual({ type: 'string' });
  });

  it('resolves a reference to a whole properties map', () => {
    const sut = bundle({
      'api.yaml':
        "openapi: 3.0.0\npaths: {}\ncomponents:\n  schemas:\n    LB:\n      properties: { $ref: 'attrs.yaml#/ids' }\n",
      'attrs.yaml': 'ids:\n  droplet_ids: { type: array, items: { type: integer } }\n',
    });
    expect((sut.document as any).components.schemas.LB.properties).toEqual({
      droplet_ids: { type: 'array', items: { type: 'integer' } },
    });
  });

  it('records where every node came from', () => {
    const sut = bundle({
      'api.yaml': "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      responses:\n        '200': { $ref: 'r.yaml' }\n",
      'r.yaml': 'description: ok\ncontent:\n  application/json:\n    schema: { type: string }\n',
    });
    expect(originOf(sut, '/paths/~1a/get/responses/200/content/application~1json')).toEqual({
      file: 'r.yaml',
      pointer: '/content/application~1json',
    });
  });

  it.each([
    [
      'a remote reference',
      "$ref: 'https://example.com/pet.yaml'",
      'remote $ref "https://example.com/pet.yaml" refused: ingestion never reads from the network',
    ],
    [
      'a protocol-relative reference',
      "$ref: '//example.com/pet.yaml'",
      'remote $ref "//example.com/pet.yaml" refused: ingestion never reads from the network',
    ],
    ['a path outside the bundle', "$ref: '../../etc/passwd'", '$ref "../../etc/passwd" points outside the bundle'],
    ['a missing file', "$ref: 'missing.yaml'", '$ref target file "missing.yaml" does not exist in the bundle'],
    [
      'a missing pointer',
      "$ref: '#/components/schemas/Nope'",
      '$ref "#/components/schemas/Nope" does not resolve: "/components/schemas/Nope" is not in api.yaml',
    ],
  ])('refuses %s with its file, line and pointer', (_name, reference, message) => {
    const problems = problemsOf(() =>
      bundle({ 'api.yaml': `openapi: 3.0.0\npaths: {}\ncomponents:\n  schemas:\n    Pet:\n      ${reference}\n` }),
    );
    expect(problems).toEqual([{ file: 'api.yaml', line: 6, pointer: '/components/schemas/Pet/$ref', message }]);
  });

  it('follows references out of the folder of a lone spec file when its user allows it', () => {
    const dir = writeBundle({
      'spec/api.yaml': "openapi: 3.0.0\npaths: {}\ncomponents:\n  schemas:\n    E: { $ref: '../common/Error.yaml' }\n",
      'common/Error.yaml': 'type: object\n',
    });
    const source = new DirectoryBundle(`${dir}/spec`, false);
    const sut = new ReferenceBundler(source, new SourceLocator(source), {
      schemaSection: 'components',
      confined: false,
    });
    expect((sut.bundle('api.yaml').document as any).components.schemas.Error).toEqual({ type: 'object' });
  });

  it('reports a cycle through objects that are not schemas instead of recursing forever', () => {
    const problems = problemsOf(() =>
      bundle({
        'api.yaml': "openapi: 3.0.0\npaths:\n  /a: { $ref: 'a.yaml' }\n",
        'a.yaml': "get: { $ref: 'a.yaml' }\n",
      }),
    );
    expect(problems[0].message).toBe('$ref "a.yaml" is circular through objects that are not schemas');
  });

  it('refuses a reference that leads to text, a number or a list where a schema or an OpenAPI object belongs', () => {
    const problems = problemsOf(() =>
      bundle({
        'api.yaml': `openapi: 3.0.0
paths:
  /a:
    get:
      responses:
        '200':
          $ref: './passwd'
        '404':
          description: missing
          content:
            application/json:
              schema:
                $ref: './numbers.yaml#/0'
        '409':
          description:
            $ref: './texts.yaml#/conflict'
          content:
            application/json:
              example:
                $ref: './notes.yaml'
`,
        passwd: 'root:x:0:0:root:/root:/bin/bash\n',
        'numbers.yaml': '[1, 2]\n',
        'notes.yaml': 'free text as an example is data\n',
        'texts.yaml': 'conflict: a description kept in a file of its own\n',
      }),
    );
    expect(problems.map((p) => `${p.file}:${p.line}#${p.pointer}: ${p.message}`)).toEqual([
      'api.yaml:7#/paths/~1a/get/responses/200/$ref: $ref "./passwd" leads to text in passwd, where an OpenAPI object belongs',
      'api.yaml:13#/paths/~1a/get/responses/404/content/application~1json/schema/$ref: $ref "./numbers.yaml#/0" leads to a number in numbers.yaml, where a schema belongs',
    ]);
  });
});

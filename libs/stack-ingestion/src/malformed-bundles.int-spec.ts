import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

import * as tar from 'tar-stream';
import * as yazl from 'yazl';

import { minimalSpec, writeBundle } from '@test/support/bundle-fixtures';
import { IngestionError, IngestionProblem } from '@libs/bundle-documents';

import { ingestStack, StackInput } from './ingest-stack';

/** Real: files on disk and archives built in memory. Mocked: nothing. */
const refusal = async (input: StackInput): Promise<{ code: string; problems: IngestionProblem[] }> => {
  try {
    await ingestStack(input);
  } catch (error) {
    if (error instanceof IngestionError) {
      return { code: error.code, problems: error.problems };
    }
    throw error;
  }
  throw new Error('the bundle was accepted');
};

const folder = (files: Record<string, string | Buffer>): StackInput => ({ kind: 'path', path: writeBundle(files) });
const spec = (text: string, name = 'api.yaml'): StackInput => ({
  kind: 'path',
  path: path.join(writeBundle({ [name]: text }), name),
});

const zip = (entries: { name: string; content: Buffer | Readable }[]): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const archive = new yazl.ZipFile();
    for (const entry of entries) {
      if (Buffer.isBuffer(entry.content)) {
        archive.addBuffer(entry.content, entry.name);
      } else {
        archive.addReadStream(entry.content, entry.name);
      }
    }
    archive.end();
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.on('error', reject);
  });

const zeros = (bytes: number): Readable => {
  let left = bytes;
  const chunk = Buffer.alloc(1024 * 1024);
  return new Readable({
    read() {
      if (left <= 0) {
        this.push(null);
        return;
      }
      const size = Math.min(left, chunk.length);
      left -= size;
      this.push(chunk.subarray(0, size));
    },
  });
};

const tarGz = async (entries: Record<string, string>): Promise<Buffer> => {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(entries)) {
    pack.entry({ name }, content);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack.pipe(zlib.createGzip())) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
};

describe('refusing malformed bundles', () => {
  it.each<[string, () => StackInput | Promise<StackInput>, string, IngestionProblem[]]>([
    [
      'bad YAML',
      () => spec('openapi: 3.0.0\ninfo: {title: x\npaths: {}\n'),
      'DOCUMENT_UNPARSABLE',
      [
        {
          file: 'api.yaml',
          line: 3,
          pointer: '',
          message: 'invalid YAML: missed comma between flow collection entries',
        },
      ],
    ],
    [
      'bad JSON',
      () => spec('{\n  "openapi": "3.0.0",\n  "paths": {,}\n}\n', 'api.json'),
      'DOCUMENT_UNPARSABLE',
      [{ file: 'api.json', line: 3, pointer: '', message: "invalid JSON: Expected property name or '}'" }],
    ],
    [
      'a broken $ref',
      () => spec(minimalSpec("components:\n  schemas:\n    A: { $ref: '#/components/schemas/B' }\n")),
      'REFERENCE_INVALID',
      [
        {
          file: 'api.yaml',
          line: 14,
          pointer: '/components/schemas/A/$ref',
          message: '$ref "#/components/schemas/B" does not resolve: "/components/schemas/B" is not in api.yaml',
        },
      ],
    ],
    [
      'a remote $ref',
      () => spec(minimalSpec("components:\n  schemas:\n    A: { $ref: 'http://example.com/a.yaml' }\n")),
      'REFERENCE_INVALID',
      [
        {
          file: 'api.yaml',
          line: 14,
          pointer: '/components/schemas/A/$ref',
          message: 'remote $ref "http://example.com/a.yaml" refused: ingestion never reads from the network',
        },
      ],
    ],
    [
      'a path outside the bundle via ../',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\n',
          'api.yaml': minimalSpec("components:\n  schemas:\n    A: { $ref: '../secrets.yaml' }\n"),
        }),
      'REFERENCE_INVALID',
      [
        {
          file: 'api.yaml',
          line: 14,
          pointer: '/components/schemas/A/$ref',
          message: '$ref "../secrets.yaml" points outside the bundle',
        },
      ],
    ],
    [
      'a duplicate operationId',
      () =>
        spec(
          minimalSpec(
            "  /other:\n    get:\n      operationId: listThings\n      responses: { '200': { description: ok } }\n",
          ),
        ),
      'SPECIFICATION_INVALID',
      [
        {
          file: 'api.yaml',
          line: 14,
          pointer: '/paths/~1other/get/operationId',
          message: 'duplicate operationId "listThings" (first used at /paths/~1things/get)',
        },
      ],
    ],
    [
      'missing paths',
      () => spec("openapi: 3.0.3\ninfo: { title: x, version: '1' }\n"),
      'SPECIFICATION_INVALID',
      [
        {
          file: 'api.yaml',
          line: 1,
          pointer: '',
          message: 'missing required "paths" (openapi-3.0 needs it; only OpenAPI 3.1 may describe webhooks alone)',
        },
      ],
    ],
    [
      'wrong types',
      () =>
        spec(
          "openapi: 3.0.3\ninfo: { title: x, version: '1' }\npaths:\n  /a:\n    parameters: { name: x }\n    get:\n      responses: nope\n  /b: 5\n",
        ),
      'SPECIFICATION_INVALID',
      [
        {
          file: 'api.yaml',
          line: 5,
          pointer: '/paths/~1a/parameters',
          message: '"parameters" must be an array, found an object',
        },
        {
          file: 'api.yaml',
          line: 7,
          pointer: '/paths/~1a/get/responses',
          message: '"responses" must be an object, found string "nope"',
        },
        { file: 'api.yaml', line: 8, pointer: '/paths/~1b', message: 'path item must be an object, found number 5' },
      ],
    ],
    [
      'an unsupported version',
      () => spec("openapi: 4.0.0\ninfo: { title: x, version: '1' }\npaths: {}\n"),
      'SPECIFICATION_INVALID',
      [
        {
          file: 'api.yaml',
          line: 1,
          pointer: '/openapi',
          message: 'unsupported version "4.0.0": Mirror reads OpenAPI 3.0, 3.1 and Swagger 2.0',
        },
      ],
    ],
    [
      'a document that is not a spec',
      () => spec('- just\n- a list\n'),
      'SPECIFICATION_INVALID',
      [
        {
          file: 'api.yaml',
          line: 1,
          pointer: '',
          message: 'expected an OpenAPI or Swagger document (an object), found an array',
        },
      ],
    ],
    [
      'an unknown field and a missing spec in mirror.yaml',
      () => folder({ 'mirror.yaml': 'name: x\nservices:\n  - name: api\n    spec: nowhere.yaml\n    colour: blue\n' }),
      'MANIFEST_INVALID',
      [{ file: 'mirror.yaml', line: 5, pointer: '/services/0/colour', message: 'unknown field "colour"' }],
    ],
    [
      'a spec named in mirror.yaml that is not in the bundle',
      () => folder({ 'mirror.yaml': 'name: x\nservices:\n  - name: api\n    spec: nowhere.yaml\n' }),
      'MANIFEST_INVALID',
      [
        {
          file: 'mirror.yaml',
          line: 4,
          pointer: '/services/0/spec',
          message: 'spec file "nowhere.yaml" is not in the bundle',
        },
      ],
    ],
    [
      'a twin pack Mirror does not have',
      () => folder({ 'mirror.yaml': 'name: x\nservices:\n  - name: chat\n    pack: teams\n' }),
      'MANIFEST_INVALID',
      [
        {
          file: 'mirror.yaml',
          line: 4,
          pointer: '/services/0/pack',
          message: 'no built-in twin pack "teams"; the packs are email, procurement, slack',
        },
      ],
    ],
    [
      'a service with both its own spec and a twin pack',
      () =>
        folder({
          'api.yaml': minimalSpec(),
          'mirror.yaml': 'name: x\nservices:\n  - name: chat\n    pack: slack\n    spec: api.yaml\n',
        }),
      'MANIFEST_INVALID',
      [
        {
          file: 'mirror.yaml',
          line: 3,
          pointer: '/services/0',
          message:
            'give one of "spec" (a file in the bundle), "pack" (a built-in twin) or "schema" (data schemas to serve as tables)',
        },
      ],
    ],
    [
      'a data service whose schema file is missing',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - name: db\n    schema: [schemas/a.sql, schemas/missing.sql]\n',
          'schemas/a.sql': 'CREATE TABLE a (id integer PRIMARY KEY);\n',
        }),
      'MANIFEST_INVALID',
      [
        {
          file: 'mirror.yaml',
          line: 4,
          pointer: '/services/0/schema/1',
          message: 'schema file "schemas/missing.sql" is not in the bundle',
        },
      ],
    ],
    [
      'a data service whose schemas declare no table',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - name: db\n    schema: schemas/a.sql\n',
          'schemas/a.sql': 'CREATE INDEX nothing ON elsewhere (id);\n',
        }),
      'MANIFEST_INVALID',
      [
        {
          file: 'mirror.yaml',
          line: 4,
          pointer: '/services/0/schema',
          message: 'these data schemas declare no table to serve',
        },
      ],
    ],
    [
      'a scenario with an unknown persona, refused before any episode could start',
      () =>
        folder({
          'api.yaml': minimalSpec(),
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\nscenarios: [scenarios/s.yaml]\n',
          'scenarios/s.yaml': [
            'id: s',
            'title: S',
            'task: { goal: Buy, tools: [api] }',
            'parties:',
            '  broker:',
            '    persona: haggler',
            'success: []',
            'horizon: { max_agent_actions: 5, business_days: 2 }',
            '',
          ].join('\n'),
        }),
      'SCENARIO_INVALID',
      [
        {
          file: 'scenarios/s.yaml',
          line: 6,
          pointer: '/parties/broker/persona',
          message: expect.stringMatching(/^Invalid discriminator value/) as string,
        },
        {
          file: 'scenarios/s.yaml',
          line: 7,
          pointer: '/success',
          message: 'Array must contain at least 1 element(s)',
        },
      ],
    ],
    [
      'a declared party reacting to an event no twin records, with a broken condition, no such service and an unknown value',
      () =>
        folder({
          'api.yaml': minimalSpec(),
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\nscenarios: [scenarios/s.yaml]\n',
          'scenarios/s.yaml': [
            'id: s',
            'title: S',
            'task: { goal: Help, tools: [api] }',
            'parties:',
            '  customer:',
            '    who: { outside: {} }',
            '    reactions:',
            '      - when:',
            '          event: api.thing.created',
            "          where: 'event.data.total >'",
            '        do:',
            '          service: billing',
            '          path: /refunds',
            "          body: { amount: '{{refund}}' }",
            '  supplier: { persona: supplier-negotiator, supplier: 0, strategy: linear, opening_price: 10, reservation_price: 8 }',
            'success: [{ kind: purchase-order, supplier: supplier, min_status: sent, quantity: 1, max_unit_price: 9 }]',
            'horizon: { max_agent_actions: 5, business_days: 2 }',
            '',
          ].join('\n'),
        }),
      'SCENARIO_INVALID',
      [
        {
          file: 'scenarios/s.yaml',
          line: 9,
          pointer: '/parties/customer/reactions/0/when/event',
          message: 'no twin of this stack records "api.thing.created"',
        },
        {
          file: 'scenarios/s.yaml',
          line: 10,
          pointer: '/parties/customer/reactions/0/when/where',
          message: expect.stringMatching(/^cannot read "event.data.total >"/) as string,
        },
        {
          file: 'scenarios/s.yaml',
          line: 12,
          pointer: '/parties/customer/reactions/0/do/service',
          message: 'the stack has no service "billing"; it has api',
        },
        {
          file: 'scenarios/s.yaml',
          line: 14,
          pointer: '/parties/customer/reactions/0/do/body/amount',
          message: expect.stringMatching(/refund/) as string,
        },
      ],
    ],
    [
      'a policy set with an unknown rule kind and a duplicate rule id',
      () =>
        folder({
          'api.yaml': minimalSpec(),
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\npolicies: [policies/p.yaml]\n',
          'policies/p.yaml': [
            'id: p',
            "version: '1'",
            'rules:',
            '  - { id: a, clause: x, severity: minor, kind: numeric-bound, field: total, max: 5 }',
            '  - { id: a, clause: x, severity: minor, kind: numeric-bound, field: total, max: 6 }',
            '  - { id: b, clause: x, severity: minor, kind: vibes }',
            '',
          ].join('\n'),
        }),
      'POLICY_INVALID',
      [
        {
          file: 'policies/p.yaml',
          line: 6,
          pointer: '/rules/2/kind',
          message: expect.stringMatching(/^Invalid discriminator value/) as string,
        },
      ],
    ],
    [
      'invalid SQL DDL',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\nschemas: [schemas/db.sql]\n',
          'api.yaml': minimalSpec(),
          'schemas/db.sql': 'CREATE TABLE a (\n  id int,,\n);\n',
        }),
      'DATA_SCHEMA_INVALID',
      [{ file: 'schemas/db.sql', line: 2, pointer: '', message: 'invalid SQL: Unexpected comma token: ","' }],
    ],
    [
      'a foreign key to an unknown table',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\nschemas: [db.sql]\n',
          'api.yaml': minimalSpec(),
          'db.sql': 'CREATE TABLE a (\n  id int PRIMARY KEY,\n  b_id int REFERENCES b(id)\n);\n',
        }),
      'DATA_SCHEMA_INVALID',
      [{ file: 'db.sql', line: 3, pointer: '', message: 'foreign key from a(b_id) references unknown table "b"' }],
    ],
    [
      'an invalid JSON Schema',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\nschemas: [s.json]\n',
          'api.yaml': minimalSpec(),
          's.json': '{\n  "type": "object",\n  "properties": { "a": { "type": 5 } }\n}\n',
        }),
      'DATA_SCHEMA_INVALID',
      [
        {
          file: 's.json',
          line: 3,
          pointer: '/properties/a/type',
          message: 'invalid JSON Schema: must be equal to one of the allowed values',
        },
      ],
    ],
    [
      'a CSV sample with a broken row',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\n',
          'api.yaml': minimalSpec(),
          'samples/things.csv': 'id,name\n1,a\n2\n',
        }),
      'DOCUMENT_UNPARSABLE',
      [{ file: 'samples/things.csv', line: 3, pointer: '', message: 'invalid CSV: 1 fields where the header has 2' }],
    ],
    [
      'a sample that names no resource',
      () =>
        folder({
          'mirror.yaml': 'name: x\nservices:\n  - { name: api, spec: api.yaml }\n',
          'api.yaml': minimalSpec(),
          'samples/widgets.json': '[{"id": 1}]',
        }),
      'MANIFEST_INVALID',
      [
        {
          file: 'samples/widgets.json',
          pointer: '',
          message: 'sample names no resource or entity ("widget"); name the file after one',
        },
      ],
    ],
    [
      'a 50 MB file',
      () => {
        const dir = writeBundle({});
        fs.writeFileSync(path.join(dir, 'huge.yaml'), Buffer.alloc(50 * 1024 * 1024, 0x20));
        return { kind: 'path', path: path.join(dir, 'huge.yaml') };
      },
      'BUNDLE_TOO_LARGE',
      [{ file: 'huge.yaml', pointer: '', message: 'file is 50.0 MiB; the limit is 16.0 MiB' }],
    ],
    [
      'a zip bomb',
      async () => ({
        kind: 'upload',
        name: 'bomb.zip',
        content: await zip([{ name: 'api.yaml', content: zeros(200 * 1024 * 1024) }]),
      }),
      'BUNDLE_TOO_LARGE',
      [{ file: 'bomb.zip!api.yaml', pointer: '', message: 'file exceeds 16.0 MiB' }],
    ],
    [
      'a zip entry that escapes the bundle (zip slip)',
      async () => {
        // Zip writers refuse such names, so the entry is written under a same-length name and patched.
        const archive = await zip([{ name: 'xx/xx/evil.yaml', content: Buffer.from('x') }]);
        const patched = Buffer.from(
          archive.toString('latin1').replaceAll('xx/xx/evil.yaml', '../../evil.yaml'),
          'latin1',
        );
        return { kind: 'upload', name: 'slip.zip', content: patched };
      },
      'ARCHIVE_INVALID',
      [{ file: 'slip.zip!../../evil.yaml', pointer: '', message: 'archive entry points outside the bundle' }],
    ],
    [
      'a corrupt archive',
      () => ({
        kind: 'upload',
        name: 'broken.zip',
        content: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100)]),
      }),
      'ARCHIVE_INVALID',
      [
        {
          file: 'broken.zip',
          pointer: '',
          message:
            'not a readable zip: End of central directory record signature not found. Either not a zip file, or file is truncated.',
        },
      ],
    ],
    [
      'a missing path',
      () => ({ kind: 'path', path: '/nonexistent/bundle' }),
      'BUNDLE_NOT_FOUND',
      [{ file: '/nonexistent/bundle', pointer: '', message: 'no such file or folder' }],
    ],
  ])('refuses %s with the exact located error', async (_name, input, code, problems) => {
    await expect(refusal(await input())).resolves.toEqual({ code, problems });
  });

  it('reads a tar.gz upload whose files sit in one top folder', async () => {
    const content = await tarGz({
      'acme/mirror.yaml': 'name: acme\nservices:\n  - { name: api, spec: api.yaml }\n',
      'acme/api.yaml': minimalSpec(),
    });
    const { model } = await ingestStack({ kind: 'upload', name: 'acme.tar.gz', content });
    expect(model.services.map((s) => [s.name, s.operations.length])).toEqual([['api', 1]]);
  });

  it('reports the problems of every service at once', async () => {
    const input = folder({
      'mirror.yaml': 'name: x\nservices:\n  - { name: one, spec: one.yaml }\n  - { name: two, spec: two.yaml }\n',
      'one.yaml': 'openapi: 3.0.0\npaths: 1\n',
      'two.yaml': 'openapi: 3.0.0\npaths: 2\n',
    });
    const { problems } = await refusal(input);
    expect(problems.map((p) => `${p.file}:${p.line}`)).toEqual(['one.yaml:2', 'two.yaml:2']);
  });
});

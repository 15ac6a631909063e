/**
 * Specs written the way an attacker would, shared by the hostile-input suites (ingestion, API, CLI). Each is small
 * on disk and enormous, endless or out of bounds once a naive reader takes it at its word.
 */

/** Ten levels of ten YAML aliases: 773 bytes that name 10^10 strings. */
export const billionLaughsYaml = (): string => {
  const lines = ['openapi: 3.0.3', 'info: {title: laughs, version: "1"}', 'x-lol0: &a0 "lol"'];
  for (let level = 1; level < 10; level++) {
    lines.push(
      `x-lol${level}: &a${level} [${Array(10)
        .fill(`*a${level - 1}`)
        .join(', ')}]`,
    );
  }
  lines.push('paths:', '  /a:', '    get:', `      x-bomb: [${Array(10).fill('*a9').join(', ')}]`);
  lines.push('      responses:', '        "200": {description: ok}', '');
  return lines.join('\n');
};

/**
 * Forty path items in a second file, each naming the next twice through its callbacks: 2^40 operations once every
 * reference is inlined. `openapi.json` is the entry.
 */
export const referenceFanOut = (): Record<string, string> => {
  const parts: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    parts[`P${i}`] = {
      get: {
        responses: { '200': { description: 'ok' } },
        callbacks: { a: { $ref: `#/C${i + 1}` }, b: { $ref: `#/C${i + 1}` } },
      },
    };
    parts[`C${i + 1}`] = { '{$request.body#/url}': { $ref: `#/P${i + 1}` } };
  }
  parts.P40 = { get: { responses: { '200': { description: 'ok' } } } };
  return {
    'openapi.json': JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'fan-out', version: '1' },
      paths: { '/a': { $ref: 'parts.json#/P0' } },
    }),
    'parts.json': JSON.stringify(parts),
  };
};

/** The same in width, shallow enough to pass any depth limit: eight responses each naming the next ten times. */
export const wideReferenceFanOut = (): Record<string, string> => {
  const parts: Record<string, unknown> = {};
  for (let i = 0; i < 8; i++) {
    const headers = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`h${n}`, { $ref: `#/H${i}` }]));
    parts[`R${i}`] = { description: 'ok', headers };
    parts[`H${i}`] = { description: 'h', schema: { type: 'string' }, examples: { e: { $ref: `#/R${i + 1}` } } };
  }
  parts.R8 = { description: 'ok' };
  return {
    'openapi.json': JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'wide', version: '1' },
      paths: { '/a': { get: { responses: { '200': { $ref: 'parts.json#/R0' } } } } },
    }),
    'parts.json': JSON.stringify(parts),
  };
};

const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

export const deepJson = (levels = 10_000): string =>
  `{"openapi":"3.0.3","info":{"title":"deep","version":"1"},"paths":{},"x-deep":${nested(levels)}}`;

export const deepYaml = (levels = 10_000): string =>
  `openapi: 3.0.3\ninfo: {title: deep, version: "1"}\npaths: {}\nx-deep: ${nested(levels)}\n`;

/** `/a` twice: the second would silently replace the first's operations. */
export const duplicateKeyYaml = (): string => `openapi: 3.0.3
info: {title: dup, version: "1"}
paths:
  /a:
    get:
      responses: {"200": {description: ok}}
  /b:
    get:
      responses: {"200": {description: ok}}
  /a:
    post:
      responses: {"200": {description: ok}}
`;

/** A lone spec whose schema reaches for a file far outside its folder. */
export const outsideReferenceSpec = (target: string): string => `openapi: 3.0.3
info: {title: outside, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "${target}"}
`;

/**
 * A small API whose schemas a twin cannot take at their word: a hanging pattern, a pattern RE2 cannot compile, a
 * `$ref` loop, a type that names nothing, bounds no value meets, a repeated `required`, a `required` that is no list. It must ingest with a
 * located warning for each and serve every call without a 500.
 */
export const unservableSchemasSpec = (): string => `openapi: 3.0.3
info: {title: hostile, version: "1"}
paths:
  /items:
    get:
      parameters:
        - {name: q, in: query, schema: {type: string, pattern: "^(a+)+$"}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Item"}}}}}
    post:
      requestBody:
        content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}
      responses:
        "201": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
  /items/search:
    post:
      requestBody:
        content: {application/json: {schema: {$ref: "#/components/schemas/Query"}}}
      responses:
        "200": {description: ok}
  /items/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
        "404": {description: missing, content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
        "400": {description: bad, content: {application/json: {schema: {$ref: "#/components/schemas/Problem"}}}}
  /loops:
    post:
      requestBody:
        content: {application/json: {schema: {$ref: "#/components/schemas/LoopA"}}}
      responses:
        "200": {description: ok}
components:
  schemas:
    Problem:
      type: object
      properties: {code: {type: string}, detail: {type: string}}
    Item:
      type: object
      required: [name, name]
      properties:
        id: {type: string}
        name: {type: string, pattern: "((("}
        count: {type: integer, minimum: 1e400}
        step: {type: number, multipleOf: 0}
        anything: {nullable: true}
    Query:
      type: object
      properties:
        kind: {type: 12}
        other: {type: object, required: name}
    LoopA: {$ref: "#/components/schemas/LoopB"}
    LoopB: {$ref: "#/components/schemas/LoopA"}
`;

/** A JSON spec whose description holds an escaped NUL: valid JSON, but no PostgreSQL column can store it. */
export const nulSpecJson = (): string =>
  JSON.stringify({ openapi: '3.0.3', info: { title: 'nul', version: '1', description: 'a\u0000b' }, paths: {} });

import * as path from 'node:path';

import { writeBundle } from '@test/support/bundle-fixtures';
import { ingestStack } from '@libs/stack-ingestion';
import {
  Episode,
  InMemoryEpisodeStore,
  serializeBody,
  StaticStackSource,
  TwinEngine,
  TwinResponse,
} from '@libs/twin-engine';

import { unservableSchemasSpec } from './hostile-specs';

/**
 * Time bounds here tell a bounded refusal from an unbounded one (hours: 2^34 backtracking steps, 10^8 nodes), not
 * fast from slow: a loaded CI machine ran the 10^8 fan-out refusal in 12 s once. Speed belongs in the benchmarks.
 */
const UNBOUNDED_SECONDS = 60;

/**
 * Hostile requests and hostile schemas against a real twin of a spec written to hurt it. Real: ingestion, the
 * engine, the episode and its recorder; the store is in memory because durability is not the subject here.
 */
describe('a twin of a hostile spec answers every call, never with a 5xx', () => {
  let episode: Episode;
  let warnings: string[];
  const service = 'api';

  const call = async (method: string, pathAndQuery: string, body?: string) => {
    const [pathOnly, search = ''] = pathAndQuery.split('?');
    const started = performance.now();
    const response = await episode.handle(
      service,
      {
        method,
        path: pathOnly,
        query: new URLSearchParams(search),
        search,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : Buffer.from(body),
      },
      `http://twin${pathAndQuery}`,
    );
    return { ...response, seconds: (performance.now() - started) / 1000, json: bodyOf(response) };
  };
  const bodyOf = (response: TwinResponse): unknown => (response.text ? JSON.parse(response.text) : response.body);

  beforeAll(async () => {
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(writeBundle({ 'api.yaml': unservableSchemasSpec() }), 'api.yaml'),
    });
    warnings = model.warnings.map((w) => `${w.location}: ${w.message}`);
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 1 });
  });

  it('names every schema it cannot enforce at ingest, located', () => {
    expect(warnings).toEqual(
      expect.arrayContaining([
        'api.yaml:32#/paths/~1loops/post/requestBody/content/application~1json/schema/$ref: $ref "#/components/schemas/LoopA" loops through references alone; the twin does not validate it',
        'api.yaml:42#/components/schemas/Item/required: "required" names a property twice; read once',
        'api.yaml:45#/components/schemas/Item/properties/name/pattern: pattern cannot run on the linear-time engine (missing ): (((); the twin does not enforce it',
        'api.yaml:46#/components/schemas/Item/properties/count/minimum: "minimum" must be a finite number, found "1e400"; the twin does not enforce it',
        'api.yaml:47#/components/schemas/Item/properties/step/multipleOf: "multipleOf" must be greater than 0, found 0; the twin does not enforce it',
        'api.yaml:52#/components/schemas/Query/properties/kind/type: "type" must name JSON types (string, number, integer, boolean, object, array, null), found 12; the twin does not enforce it',
        'api.yaml:49#/components/schemas/Query: the twin cannot compile this schema (required value must be ["array"]); it does not validate it',
      ]),
    );
  });

  it('serves the operations whose schemas are broken, leniently where they cannot be enforced', async () => {
    const created = await call('POST', '/items', JSON.stringify({ name: 'x', count: 3, step: 1.5 }));
    expect(created.status).toBe(201);
    expect((await call('GET', '/items')).status).toBe(200);
    expect((await call('POST', '/items/search', JSON.stringify({ kind: 'anything' }))).status).toBe(200);
    expect((await call('POST', '/loops', JSON.stringify({ any: 1 }))).status).toBe(200);
  });

  it('matches ^(a+)+$ in linear time: 34 a and a ! is refused at once', async () => {
    const response = await call('GET', `/items?q=${'a'.repeat(34)}!`);
    expect(response.status).toBe(400);
    expect(response.seconds).toBeLessThan(UNBOUNDED_SECONDS);
    const long = await call('GET', `/items?q=${'a'.repeat(100_000)}!`);
    expect(long.status).toBe(400);
    expect(long.seconds).toBeLessThan(UNBOUNDED_SECONDS);
    expect((await call('GET', `/items?q=${'a'.repeat(34)}`)).status).toBe(200);
  });

  it('decodes a path parameter exactly once: 100%25 is the id "100%", %2525 is "%25"', async () => {
    for (const [raw, id] of [
      ['100%25', '100%'],
      ['%2525', '%25'],
    ]) {
      const response = await call('GET', `/items/${raw}`);
      expect(response.status).toBe(404);
      expect(JSON.stringify(response.json)).toContain(JSON.stringify(id).slice(1, -1));
    }
  });

  it.each(['/items/%zz', '/items/100%', '/items/%E0%A4%A'])(
    'refuses the malformed path %s with 400 in the spec shape',
    async (p) => {
      const response = await call('GET', p);
      expect(response.status).toBe(400);
      expect(Object.keys(response.json as object).sort()).toEqual(['code', 'detail']);
    },
  );

  it('refuses a malformed query escape with 400', async () => {
    const response = await call('GET', '/items?q=%zz');
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.json)).toContain('malformed percent-encoding');
  });

  it('refuses NUL in a body string, a body key and a query value with 400, before anything is recorded', async () => {
    for (const [method, p, body] of [
      ['POST', '/items', JSON.stringify({ name: 'a\u0000b' })],
      ['POST', '/items', JSON.stringify({ name: 'ok', 'k\u0000': 1 })],
      ['GET', '/items?q=a%00', undefined],
    ] as const) {
      const seq = episode.state.seq;
      const response = await call(method, p, body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.json)).toContain('NUL');
      expect(episode.state.seq).toBe(seq);
    }
  });

  it('echoes an integer beyond 2^53 as the digits sent, and refuses one it cannot keep exact, located', async () => {
    for (const [body, echoed] of [
      ['{"name":"big","count":9007199254740993}', '"count":9007199254740993'],
      // Written with a fraction or an exponent, it is still the integer it denotes (JSON Schema's view of 1e20).
      ['{"name":"big","count":9007199254740993.0}', '"count":9007199254740993'],
      ['{"name":"big","count":1e20}', '"count":100000000000000000000'],
      // A number beyond 2^53 where the schema takes any number is the double it was sent as.
      ['{"name":"big","count":1,"step":1.5e300}', '"step":1.5e+300'],
    ]) {
      const response = await call('POST', '/items', body);
      expect(response.status).toBe(201);
      expect(serializeBody(response)).toContain(echoed);
    }
    for (const [body, message] of [
      ['{"name":"big","count":1e100}', 'beyond 2^53'],
      ['{"name":"big","count":1e400}', 'too large'],
    ]) {
      const seq = episode.state.seq;
      const refused = await call('POST', '/items', body);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.json)).toContain('body/count');
      expect(JSON.stringify(refused.json)).toContain(message);
      expect(episode.state.seq).toBe(seq);
    }
  });

  it("lists only the path's own methods in a 405's Allow", async () => {
    const response = await call('DELETE', '/items/search');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });

  it('answers a method the concrete path lacks with 405, not through the wider template it also matches', async () => {
    const seq = episode.state.seq;
    const read = await call('GET', '/items/search');
    expect(read.status).toBe(405);
    expect(read.headers.allow).toBe('POST');
    expect(episode.state.seq).toBe(seq);
    expect((await call('POST', '/items/search', JSON.stringify({ kind: 'x' }))).status).toBe(200);
    expect((await call('GET', '/items/other')).status).toBe(404);
  });
});

import * as path from 'node:path';

import { repositoryRoot } from '@test/support/cli-runner';
import { ingestStack } from '@libs/stack-ingestion';

import { Episode } from './episode';
import { InMemoryEpisodeStore } from './in-memory-episode-store';
import { serializeBody, TwinResponse } from './twin-http';
import { StaticStackSource, TwinEngine } from './twin-engine';

const fixture = (name: string): string => path.join(repositoryRoot, 'test', 'fixtures', 'fidelity', 'wire', name);

/**
 * The wire conventions SDKs rely on, through real twins of specs written for the test: ingestion, the engine and an
 * episode (in memory, because durability is not the subject).
 */
describe('wire conventions through a twin', () => {
  const twinOf = async (file: string): Promise<{ episode: Episode; service: string }> => {
    const { model, version } = await ingestStack({ kind: 'path', path: fixture(file) });
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model));
    return {
      episode: await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 3 }),
      service: model.services[0].name,
    };
  };
  const caller =
    (twin: { episode: Episode; service: string }) =>
    async (method: string, pathAndQuery: string, body?: string, contentType = 'application/json') => {
      const [pathOnly, search = ''] = pathAndQuery.split('?');
      const response: TwinResponse = await twin.episode.handle(
        twin.service,
        {
          method,
          path: pathOnly,
          query: new URLSearchParams(search),
          search,
          headers: { 'content-type': contentType, accept: 'application/json' },
          body: body === undefined ? undefined : Buffer.from(body),
        },
        `http://twin.test/base${pathOnly}`,
      );
      const json: unknown = response.text ? JSON.parse(response.text) : response.body;
      return {
        status: response.status,
        headers: response.headers,
        json: json as Record<string, unknown>,
        text: String(serializeBody(response) ?? ''),
      };
    };

  describe('form bodies with bracket notation', () => {
    let call: ReturnType<typeof caller>;
    const form = 'application/x-www-form-urlencoded';
    beforeAll(async () => {
      call = caller(await twinOf('form-bodies.yaml'));
    });

    it('reads an empty form sent as a form as one without fields, and no body at all as none', async () => {
      const empty = await call('POST', '/v1/workspaces', '', form);
      expect(empty.status).toBe(400);
      expect(JSON.stringify(empty.json)).toContain('FriendlyName');
      expect((await call('POST', '/v1/workspaces', 'FriendlyName=Desk', form)).status).toBe(201);
      expect((await call('POST', '/v1/workspaces', undefined, '')).status).toBe(201);
    });

    it('creates a record from deepObject metadata, indexed items and bracket arrays that a GET returns', async () => {
      const body = [
        'amount=2000',
        'currency=usd',
        'capture=true',
        'metadata[order_id]=6735',
        'metadata[note]=two+words',
        'items[0][price]=price_a',
        'items[0][quantity]=2',
        'items[1][price]=price_b',
        'payment_method_types[]=card',
        'payment_method_types[]=sepa_debit',
        'expand[]=customer',
        'tags=red|blue',
        'FriendlyName=Front+desk',
      ].join('&');
      const created = await call('POST', '/v1/charges', body, form);
      expect(created.status).toBe(200);
      const expected = {
        amount: 2000,
        currency: 'usd',
        capture: true,
        metadata: { order_id: '6735', note: 'two words' },
        items: [{ price: 'price_a', quantity: 2 }, { price: 'price_b' }],
        payment_method_types: ['card', 'sepa_debit'],
        tags: ['red', 'blue'],
        friendly_name: 'Front desk',
      };
      expect(created.json).toMatchObject(expected);
      const id = String(created.json.id);
      const read = await call('GET', `/v1/charges/${id}`);
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ id, ...expected });
      const listed = await call('GET', '/v1/charges?limit=100');
      expect((listed.json.data as { id: string }[]).map((c) => c.id)).toContain(id);
    });

    it('reads indices past the decoder list limit as the list they mean', async () => {
      const created = await call(
        'POST',
        '/v1/charges',
        'amount=1&currency=eur&items[0][price]=first&items[150][price]=last',
        form,
      );
      expect(created.status).toBe(200);
      expect(created.json.items).toEqual([{ price: 'first' }, { price: 'last' }]);
    });

    it('refuses a form whose fields break the schema, naming the field', async () => {
      const wrongType = await call('POST', '/v1/charges', 'amount=lots&currency=usd', form);
      expect(wrongType.status).toBe(400);
      expect(JSON.stringify(wrongType.json)).toContain('amount');
      const nested = await call('POST', '/v1/charges', 'amount=1&currency=usd&metadata[a][b]=c', form);
      expect(nested.status).toBe(400);
      expect(JSON.stringify(nested.json)).toContain('metadata');
      const deep = await call('POST', '/v1/charges', `amount=1&currency=usd&metadata${'[a]'.repeat(20)}=c`, form);
      expect(deep.status).toBe(400);
      expect(JSON.stringify(deep.json)).toContain('depth');
    });

    it('reads a multipart form with bracket names, and refuses one missing a required part', async () => {
      const boundary = 'wire-test-boundary';
      const part = (name: string, value: string, filename?: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${value}\r\n`;
      const multipart = (parts: string[]) => `${parts.join('')}--${boundary}--\r\n`;
      const type = `multipart/form-data; boundary=${boundary}`;
      const ok = await call(
        'POST',
        '/v1/files',
        multipart([
          part('purpose', 'dispute_evidence'),
          part('file', '%PDF-1.4 …', 'evidence.pdf'),
          part('file_link_data[create]', 'true'),
          part('file_link_data[metadata][case]', '42'),
        ]),
        type,
      );
      expect(ok.status).toBe(200);
      // An object part sent as JSON (OpenAPI's default content type for an object in multipart) is read as JSON.
      const jsonPart = await call(
        'POST',
        '/v1/files',
        multipart([
          part('purpose', 'identity_document'),
          part('file', 'bytes', 'id.png'),
          part('file_link_data', '{"create":true,"metadata":{"case":"42"}}'),
        ]),
        type,
      );
      expect(jsonPart.status).toBe(200);
      const wrongJson = await call(
        'POST',
        '/v1/files',
        multipart([
          part('purpose', 'identity_document'),
          part('file', 'x', 'a.png'),
          part('file_link_data', '{"create":"yes"}'),
        ]),
        type,
      );
      expect(wrongJson.status).toBe(400);
      const missing = await call('POST', '/v1/files', multipart([part('purpose', 'dispute_evidence')]), type);
      expect(missing.status).toBe(400);
      expect(JSON.stringify(missing.json)).toContain('file');
    });

    it('keeps an integer beyond 2^53 in a form field or a JSON part as its digits, within its bounds', async () => {
      const created = await call(
        'POST',
        '/v1/charges',
        'amount=9007199254740993&fee=9007199254740995&currency=usd',
        form,
      );
      expect(created.status).toBe(200);
      expect(created.text).toContain('"amount":9007199254740993');
      expect(created.text).toContain('"fee":9007199254740995');
      const read = await call('GET', `/v1/charges/${String(created.json.id)}`);
      expect(read.text).toContain('"amount":9007199254740993');

      const boundary = 'exact-boundary';
      const part = (name: string, value: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const upload = (size: string, link = '{"create":true}') =>
        call(
          'POST',
          '/v1/files',
          [
            part('purpose', 'dispute_evidence'),
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\nx\r\n`,
            part('size', size),
            part('file_link_data', link),
            `--${boundary}--\r\n`,
          ].join(''),
          `multipart/form-data; boundary=${boundary}`,
        );
      expect((await upload('9223372036854775807', '{"expires_at":9007199254740993}')).status).toBe(200);
      // int64's limits are checked on the digits: 2^63 rounds to a number the validator alone would pass.
      for (const [size, link, location] of [
        ['9223372036854775808', '{}', 'body/size'],
        ['1', '{"expires_at":9223372036854775808}', 'body/file_link_data/expires_at'],
      ]) {
        const refused = await upload(size, link);
        expect(refused.status).toBe(400);
        expect(refused.text).toContain(location);
        expect(refused.text).toContain('9223372036854775808');
      }
    });
  });

  describe('cursor pagination by record id', () => {
    let call: ReturnType<typeof caller>;
    beforeAll(async () => {
      call = caller(await twinOf('cursor-by-id.yaml'));
      for (let i = 0; i < 5; i++) {
        const created = await call('POST', '/notes', JSON.stringify({ text: `note ${i}` }));
        if (created.status !== 200) {
          throw new Error(`setup: creating a note answered ${created.status}`);
        }
      }
    });

    it('walks every record once with after=<last id>, and back with before=<first id>', async () => {
      const everything = ((await call('GET', '/notes?limit=100')).json.data as { id: string }[]).map((n) => n.id);
      expect(everything.length).toBeGreaterThanOrEqual(5);
      const walked: string[] = [];
      let query = 'limit=2';
      for (let pages = 0; pages < 100; pages++) {
        const page = await call('GET', `/notes?${query}`);
        expect(page.status).toBe(200);
        const ids = (page.json.data as { id: string }[]).map((n) => n.id);
        walked.push(...ids);
        expect(page.json.last_id).toBe(ids[ids.length - 1]);
        if (!page.json.has_more) {
          break;
        }
        query = `limit=2&after=${encodeURIComponent(ids[ids.length - 1])}`;
      }
      expect(walked).toEqual(everything);
      const before = await call('GET', `/notes?limit=2&before=${encodeURIComponent(everything[4])}`);
      expect((before.json.data as { id: string }[]).map((n) => n.id)).toEqual(everything.slice(2, 4));
      expect(before.json.has_more).toBe(true);
    });

    it('answers an unknown cursor id with a 400 in the spec error shape naming it', async () => {
      const unknown = await call('GET', '/notes?after=note_doesnotexist');
      expect(unknown.status).toBe(400);
      expect(unknown.json.message).toContain('note_doesnotexist');
    });
  });

  describe('Link-header pagination and parameters that are not filters', () => {
    let call: ReturnType<typeof caller>;
    beforeAll(async () => {
      call = caller(await twinOf('link-pagination.yaml'));
      for (const state of ['open', 'closed', 'open']) {
        const created = await call('POST', '/issues', JSON.stringify({ title: `a ${state} one`, state }));
        if (created.status !== 201) {
          throw new Error(`setup: creating an issue answered ${created.status}`);
        }
      }
    });
    const idsOf = (json: unknown): number[] => (json as { id: number }[]).map((issue) => issue.id);

    it('links pages with rel next, prev, first and last on the request base, and a paginator walks them all', async () => {
      const all = await call('GET', '/issues?per_page=100');
      const everything = idsOf(all.json);
      expect(everything.length).toBeGreaterThan(3);
      const first = await call('GET', '/issues?per_page=2');
      const links = Object.fromEntries(
        [...(first.headers.link ?? '').matchAll(/<([^>]+)>; rel="([a-z]+)"/g)].map((m) => [m[2], m[1]]),
      );
      expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next']);
      expect(links.next).toBe('http://twin.test/base/issues?per_page=2&page=2');
      const walked: number[] = [];
      let next: string | undefined = '/issues?per_page=2';
      let page: Awaited<ReturnType<typeof call>> | undefined;
      for (let pages = 0; next && pages < 100; pages++) {
        page = await call('GET', next);
        walked.push(...idsOf(page.json));
        const href = /<([^>]+)>; rel="next"/.exec(page.headers.link ?? '')?.[1];
        next = href ? href.replace('http://twin.test/base', '') : undefined;
      }
      expect(walked).toEqual(everything);
      expect(page?.headers.link).toContain('rel="prev"');
      expect(page?.headers.link).not.toContain('rel="next"');
    });

    it('leaves alone enum values a record cannot hold, and sort and direction, but filters by a real state', async () => {
      const everything = idsOf((await call('GET', '/issues?per_page=100')).json);
      const all = idsOf((await call('GET', '/issues?per_page=100&state=all')).json);
      expect(all).toEqual(everything);
      const sorted = idsOf((await call('GET', '/issues?per_page=100&sort=updated&direction=asc')).json);
      expect(sorted).toEqual(everything);
      const open = (await call('GET', '/issues?per_page=100&state=open')).json as unknown as { state: string }[];
      expect(open.length).toBeGreaterThanOrEqual(2);
      expect(open.length).toBeLessThan(everything.length);
      expect(open.every((issue) => issue.state === 'open')).toBe(true);
    });

    it('takes integers beyond 2^53 in the path and query as the digits sent, within their bounds', async () => {
      const past = await call('GET', '/issues?per_page=2&page=9007199254740993');
      expect(past.status).toBe(200);
      expect(past.json).toEqual([]);
      const tooMany = await call('GET', '/issues?per_page=9007199254740993');
      expect(tooMany.status).toBe(400);
      expect(JSON.stringify(tooMany.json)).toContain('per_page');
      // int64's limits, compared on the digits: 2^63 and -2^63 - 1 round to numbers inside them.
      expect((await call('GET', '/issues?per_page=2&page=9223372036854775807')).status).toBe(200);
      for (const outside of ['9223372036854775808', '-9223372036854775809']) {
        const refused = await call('GET', `/issues?per_page=2&page=${outside}`);
        expect(refused.status).toBe(400);
        expect(JSON.stringify(refused.json)).toContain(outside);
      }
      const missing = await call('GET', '/issues/9007199254740993');
      expect(missing.status).toBe(404);
      expect(JSON.stringify(missing.json)).toContain('9007199254740993');
      expect(JSON.stringify(missing.json)).not.toContain('9007199254740992');
      expect((await call('GET', '/issues/90071992547409931.5')).status).toBe(400);
    });
  });

  describe('writeOnly properties and nullable enums', () => {
    let call: ReturnType<typeof caller>;
    beforeAll(async () => {
      call = caller(await twinOf('write-only.yaml'));
    });

    it('keeps what it was sent but never answers a writeOnly property, at any depth, in a create, get or list', async () => {
      const created = await call(
        'POST',
        '/envelopes',
        JSON.stringify({ title: 'Lease', pin: '0000', signers: [{ email: 'a@example.com', password: 'hunter2' }] }),
      );
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ title: 'Lease', signers: [{ email: 'a@example.com' }] });
      const id = String(created.json.id);
      const fetched = await call('GET', `/envelopes/${id}`);
      const listed = await call('GET', '/envelopes?title=Lease');
      expect(fetched.json).toMatchObject({ id, signers: [{ email: 'a@example.com' }] });
      expect(listed.json.entries).toMatchObject([{ id, signers: [{ email: 'a@example.com' }] }]);
      for (const answer of [created, fetched, listed]) {
        expect(JSON.stringify(answer.json)).not.toMatch(/hunter2|"password"|"pin"/);
      }
    });

    it('refuses null for a nullable enum that does not list null, and takes a member or null where it is a type', async () => {
      const signers = [{ email: 'b@example.com' }];
      expect((await call('POST', '/envelopes', JSON.stringify({ ink: null, signers }))).status).toBe(400);
      expect((await call('POST', '/envelopes', JSON.stringify({ ink: 'blue', signers }))).status).toBe(201);
    });
  });
});

import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { ingestStack } from '@libs/stack-ingestion';

import { InMemoryEpisodeStore } from '../in-memory-episode-store';
import { StaticStackSource, TwinEngine } from '../twin-engine';
import { createServiceOriginServer } from './gateway-server';

const notes = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'fidelity', 'fuzz', 'notes.yaml');

/** Real: a spec twin at an origin of its own over HTTP, as `mirror serve` serves it. Mocked: nothing. */
describe('a service origin refusing paths that could mean another route', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const { model, version } = await ingestStack({ kind: 'path', path: notes });
    const engine = new TwinEngine(new InMemoryEpisodeStore(), new StaticStackSource(model), new Map());
    const episode = await engine.createEpisode({ tenantId: 'test', stackVersion: version, seed: 3 });
    server = createServiceOriginServer(engine, 'test', episode.id, [...episode.twin.services.keys()][0], {
      error: (message) => console.error(message),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('answers 400 in the API’s own error shape, never a gateway body the spec does not declare', async () => {
    for (const [method, sneaky] of [
      ['GET', '/v1/notes/a%5Cb'],
      ['DELETE', '/v1/notes/..%2Fnotes'],
      ['GET', '/v1/notes/x%2fy'],
    ]) {
      const answer = await fetch(`${origin}${sneaky}`, { method });
      const body = (await answer.json()) as Record<string, unknown>;
      // The spec's Error is `{message}`: the twin's refusal has it, and not the gateway's own `error` field.
      expect({ sneaky, status: answer.status, type: answer.headers.get('content-type') }).toEqual({
        sneaky,
        status: 400,
        type: expect.stringMatching(/^application\/json/),
      });
      expect(body).toEqual(expect.objectContaining({ message: expect.stringContaining('dot segment') }));
      expect(body).not.toHaveProperty('error');
    }
  });
});

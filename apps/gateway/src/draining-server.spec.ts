import { AddressInfo } from 'node:net';

import { drainingServer } from './draining-server';

/** Real HTTP on a local port: a request in flight when the drain starts, and one that comes after. */
describe(drainingServer.name, () => {
  it('answers what is in flight, refuses new connections, and then stops', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (started = resolve));
    const { server, drain } = drainingServer((request, response) => {
      request.resume();
      started();
      void held.then(() => response.end('done'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const inFlight = fetch(`${base}/e/x/erp/orders`, { method: 'POST', body: '{}' });
    await arrived;
    const drained = drain(60_000);
    let stopped = false;
    void drained.then(() => (stopped = true));

    // A new client is refused before it sends anything, so it can go to another gateway safely.
    const refused = await fetch(`${base}/_mirror/health`).catch((error: Error) => error);
    expect(refused).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    expect(stopped).toBe(false);

    release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    expect(await answer.text()).toBe('done');
    await drained;
    expect(server.listening).toBe(false);
  });
});

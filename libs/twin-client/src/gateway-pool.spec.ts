import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { fetchOnGateways, gatewayOrder } from './gateway-pool';

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

/** A gateway that answers with its own name. */
const answering = (name: string): Server =>
  createServer((request, response) => {
    request.resume();
    response.end(name);
  });

describe(gatewayOrder.name, () => {
  const gateways = ['http://a:4000', 'http://b:4000', 'http://c:4000'];
  const ids = Array.from({ length: 3000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

  it('gives every process the same owner for an episode, whatever order its list is in', () => {
    for (const id of ids.slice(0, 50)) {
      expect(gatewayOrder(id, gateways)).toEqual(gatewayOrder(id, [...gateways].reverse()));
    }
  });

  it('spreads episodes over the gateways', () => {
    const owners = new Map<string, number>();
    for (const id of ids) {
      const owner = gatewayOrder(id, gateways)[0];
      owners.set(owner, (owners.get(owner) ?? 0) + 1);
    }
    for (const gateway of gateways) {
      expect(owners.get(gateway)).toBeGreaterThan(ids.length / 3 - 200);
    }
  });

  it("moves only a lost gateway's episodes, each to the next gateway in its own order", () => {
    const [lost, ...rest] = gateways;
    for (const id of ids.slice(0, 300)) {
      const before = gatewayOrder(id, gateways);
      const after = gatewayOrder(id, rest);
      expect(after[0]).toBe(before[0] === lost ? before[1] : before[0]);
    }
  });
});

describe(fetchOnGateways.name, () => {
  it("sends an episode's request to its owner, and to the next gateway once the owner is gone", async () => {
    const a = answering('a');
    const b = answering('b');
    const urls = await Promise.all([listen(a), listen(b)]);
    const names = new Map([
      [urls[0], 'a'],
      [urls[1], 'b'],
    ]);
    const episode = 'episode-1';
    const [owner, next] = gatewayOrder(episode, urls);
    try {
      const first = await fetchOnGateways(urls, episode, '/x', { method: 'POST', body: '{}' }, false);
      expect(await first.text()).toBe(names.get(owner));
      await close(owner === urls[0] ? a : b);
      // Refused before anything was sent: even a write without an idempotency key goes to the next gateway.
      const moved = await fetchOnGateways(urls, episode, '/x', { method: 'POST', body: '{}' }, false);
      expect(await moved.text()).toBe(names.get(next));
    } finally {
      await Promise.all([a, b].filter((s) => s.listening).map(close));
    }
  });

  it('never sends again a write that may have reached a gateway which died under it', async () => {
    let writes = 0;
    const dying = createServer((request) => {
      writes++;
      request.socket.destroy();
    });
    const healthy = createServer((request, response) => {
      writes++;
      request.resume();
      response.end('ok');
    });
    const urls = await Promise.all([listen(dying), listen(healthy)]);
    const episode = Array.from({ length: 100 }, (_, i) => `e${i}`).find((id) => gatewayOrder(id, urls)[0] === urls[0])!;
    try {
      await expect(fetchOnGateways(urls, episode, '/x', { method: 'POST', body: '{}' }, false)).rejects.toThrow(
        'fetch failed',
      );
      expect(writes).toBe(1);
      // A read (or a keyed write) is safe to send again, and is.
      const read = await fetchOnGateways(urls, episode, '/x', { method: 'GET' }, true);
      expect(await read.text()).toBe('ok');
    } finally {
      await Promise.all([close(dying), close(healthy)]);
    }
  });
});

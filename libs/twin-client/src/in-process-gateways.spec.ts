import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { fetchOnGateways } from './gateway-pool';
import { fetchInProcess, serveInProcess } from './in-process-gateways';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A gateway that records what reached it and answers with a status and body the request asks for. */
const recording = (seen: Seen[]): Server =>
  createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: request.method, url: request.url, headers: request.headers, body });
      const status = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
      response.writeHead(status, ['content-type', 'application/json', 'x-twin', 'yes']);
      response.end(status === 204 ? undefined : JSON.stringify({ echoed: body, café: '☕' }));
    });
  });

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

describe(serveInProcess.name, () => {
  let server: Server;
  let url: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = recording(seen);
    url = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => seen.splice(0));

  const init = (): RequestInit => ({
    method: 'POST',
    headers: { Authorization: 'Bearer t0k', 'Content-Type': 'application/json', 'Idempotency-Key': 'a#1' },
    body: JSON.stringify({ text: 'naïve — 5 €' }),
  });

  it('hands the server the request fetch would have sent it, and gives back the same answer', async () => {
    const overHttp = await fetchOnGateways([url], 'e1', '/e/e1/slack/api/chat.postMessage?status=201', init(), true);
    const httpAnswer = { status: overHttp.status, ok: overHttp.ok, text: await overHttp.text() };
    const stop = serveInProcess(url, server);
    try {
      const inProcess = await fetchOnGateways([url], 'e1', '/e/e1/slack/api/chat.postMessage?status=201', init(), true);
      expect({ status: inProcess.status, ok: inProcess.ok, text: await inProcess.text() }).toEqual(httpAnswer);
    } finally {
      stop();
    }
    expect(seen).toHaveLength(2);
    const [http, local] = seen;
    expect(local.method).toBe(http.method);
    expect(local.url).toBe(http.url);
    expect(local.body).toBe(http.body);
    // Every header the twins could read, named and valued as Node's parser gives them (connection handling aside).
    const { connection: _a, ...httpHeaders } = http.headers;
    const { connection: _b, ...localHeaders } = local.headers;
    expect(localHeaders).toEqual(httpHeaders);
  });

  it('answers statuses without a body and failures as fetch does (not ok, the body readable)', async () => {
    const stop = serveInProcess(url, server);
    try {
      const empty = await fetchInProcess(url, '/e/e1/mail/x?status=204', { method: 'DELETE' });
      expect(empty && { status: empty.status, ok: empty.ok, text: await empty.text() }).toEqual({
        status: 204,
        ok: true,
        text: '',
      });
      const refused = await fetchInProcess(url, '/e/e1/mail/x?status=404', {});
      expect(refused?.ok).toBe(false);
      expect(JSON.parse((await refused?.text()) ?? '')).toEqual({ echoed: '', café: '☕' });
    } finally {
      stop();
    }
  });

  it('serves only the URLs registered, and nothing once stopped', async () => {
    expect(fetchInProcess(url, '/e/e1/mail/x', {})).toBeUndefined();
    const stop = serveInProcess(url, server);
    expect(fetchInProcess('http://127.0.0.1:1', '/e/e1/mail/x', {})).toBeUndefined();
    await fetchInProcess(url, '/e/e1/mail/x', {});
    stop();
    expect(fetchInProcess(url, '/e/e1/mail/x', {})).toBeUndefined();
    expect(seen).toHaveLength(1);
  });
});

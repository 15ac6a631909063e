import { WebSocket } from 'ws';

import { ControlPlaneAccessError, ControlPlaneAdmission, ControlPlaneCaller } from '@libs/agent-tools';
import { InMemoryEpisodes } from '@test/support/episode-protocols/in-memory-episodes';
import { serveProtocols } from '@test/support/episode-protocols/protocol-server';

/**
 * A keyed server's rule, reduced to its decisions: the trainer's key may read and start, the reviewer's only read, no
 * key nothing. (The episode API's real rule over real keys is `episode-api-access-matrix.int-spec.ts`'s subject; here,
 * that every control-plane route of the protocols asks it, before it does anything.)
 */
const trainer: ControlPlaneCaller = { actor: 'key:trainer', actorKind: 'trainer' };
const keyed: ControlPlaneAdmission = (authorization, permission) => {
  if (authorization === 'Bearer trainer-key') {
    return Promise.resolve(trainer);
  }
  if (authorization === 'Bearer reviewer-key') {
    return permission === 'environments:read'
      ? Promise.resolve({ actor: 'key:reviewer', actorKind: 'reviewer' })
      : Promise.reject(new ControlPlaneAccessError(403, `role reviewer may not ${permission}`));
  }
  return Promise.reject(new ControlPlaneAccessError(401, 'missing API key: send Authorization: Bearer <key>'));
};

describe('OpenEnv routes behind the control-plane rule', () => {
  let episodes: InMemoryEpisodes;
  let served: Awaited<ReturnType<typeof serveProtocols>>;
  const sockets: WebSocket[] = [];
  const key = (name: string): Record<string, string> => ({ Authorization: `Bearer ${name}` });
  const url = (path: string): string => `${served.baseUrl}/openenv/shop${path}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url(path), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const createSession = (headers: Record<string, string> = {}) =>
    post('/mcp', { jsonrpc: '2.0', id: 1, method: 'openenv/session/create', params: {} }, headers);
  /** Opens a socket and resolves with it, or rejects with the upgrade's refusal. */
  const socket = (headers: Record<string, string>, query = ''): Promise<WebSocket> => {
    const ws = new WebSocket(`${served.baseUrl.replace('http', 'ws')}/openenv/shop/ws${query}`, { headers });
    sockets.push(ws);
    return new Promise((resolve, reject) => ws.once('open', () => resolve(ws)).once('error', reject));
  };
  const reply = (ws: WebSocket, message: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      ws.once('message', (raw: Buffer) => resolve(JSON.parse(raw.toString('utf8')) as Record<string, unknown>));
      ws.send(JSON.stringify(message));
    });

  beforeEach(async () => {
    episodes = new InMemoryEpisodes();
    served = await serveProtocols(episodes, keyed);
  });

  afterEach(async () => {
    sockets.forEach((ws) => ws.terminate());
    sockets.length = 0;
    await served.close();
  });

  it('reads environments for a key that may read them, and for no one else', async () => {
    const answers = await Promise.all(
      ['/health', '/metadata', '/schema'].flatMap((path) => [
        fetch(url(path)),
        fetch(url(path), { headers: key('reviewer-key') }),
        fetch(url(path), { headers: key('trainer-key') }),
      ]),
    );

    expect(answers.map((answer) => answer.status)).toEqual([401, 200, 200, 401, 200, 200, 401, 200, 200]);
    expect(answers[0].headers.get('www-authenticate')).toBe('Bearer realm="mirror"');
    expect(await answers[0].json()).toEqual({
      error: { code: 'api_key_invalid', message: 'missing API key: send Authorization: Bearer <key>' },
    });
  });

  it('starts episodes (reset, session creation) only for a key that may start them, and starts none otherwise', async () => {
    const refused = await Promise.all([
      post('/reset', {}),
      post('/reset', {}, key('reviewer-key')),
      createSession(),
      createSession(key('reviewer-key')),
    ]);
    expect(refused.map((answer) => answer.status)).toEqual([401, 403, 401, 403]);
    expect(await refused[1].json()).toEqual({
      error: { code: 'forbidden', message: 'role reviewer may not episodes:run' },
    });
    expect(episodes.started).toBe(0);

    const reset = await post('/reset', {}, key('trainer-key'));
    const session = await createSession(key('trainer-key'));
    expect([reset.status, session.status]).toEqual([200, 200]);
    expect(episodes.started).toBe(2);
    // Each start names the key the rule admitted, for the evidence trail.
    expect(episodes.starters).toEqual([trainer, trainer]);
  });

  it('refuses a WebSocket that would start episodes without the key, and lets one attached to a session start none', async () => {
    await expect(socket({})).rejects.toThrow(/401/);
    await expect(socket(key('reviewer-key'))).rejects.toThrow(/403/);
    const keyedSocket = await socket(key('trainer-key'));
    expect(await reply(keyedSocket, { type: 'reset', data: {} })).toMatchObject({ type: 'observation' });
    expect(episodes.starters.at(-1)).toEqual(trainer);

    const created = (await (await createSession(key('trainer-key'))).json()) as { result: { session_id: string } };
    const attached = await socket({}, `?session_id=${created.result.session_id}`);
    const started = episodes.started;
    expect(await reply(attached, { type: 'state' })).toMatchObject({ type: 'state' });
    expect(await reply(attached, { type: 'reset', data: {} })).toEqual({
      type: 'error',
      data: { code: 'api_key_invalid', message: 'missing API key: send Authorization: Bearer <key>', status: 401 },
    });
    expect(episodes.started).toBe(started);
  });
});

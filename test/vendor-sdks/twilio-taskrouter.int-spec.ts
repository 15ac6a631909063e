import { serveVendorTwin, VendorTwin } from './vendor-twin';

/** What twilio-node's RestException reads from an error answer: the HTTP status and the body's fields. */
interface RestException {
  status: number;
  message?: string;
  code?: unknown;
  moreInfo?: unknown;
}

/**
 * Real: the twin of Twilio's published TaskRouter spec (the shared specs' `twilio-taskrouter`, from twilio/twilio-oai)
 * over HTTP, called the way twilio-node's RequestClient calls it — HTTP Basic with the account SID and the auth token,
 * PascalCase form bodies, `Accept: application/json`, pages walked by following `meta.next_page_url`, errors read into
 * a RestException from the status and the body's `message`/`code`/`more_info`. Not real: the SDK itself. The `twilio`
 * npm package is not installed in this repository, so its calls are written out here with fetch; with the package,
 * `twilio(accountSid, token, { edge… })` pointed at the origin would replace `call`.
 */
describe('Twilio TaskRouter twin called as twilio-node calls it', () => {
  let twin: VendorTwin;
  const accountSid = `AC${'0'.repeat(32)}`;

  beforeAll(async () => {
    twin = await serveVendorTwin('twilio-taskrouter');
  }, 900_000); // ingesting a large vendor spec on a loaded machine can take minutes

  afterAll(() => twin?.close());

  const call = async (
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    form?: Record<string, string | boolean | number>,
  ): Promise<{ status: number; body: Record<string, unknown> | undefined; error?: RestException }> => {
    const response = await fetch(url.startsWith('http') ? url : `${twin.origin}${url}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${accountSid}:${twin.token}`).toString('base64')}`,
        accept: 'application/json',
        'user-agent': 'twilio-node/5 (fetch in a test)',
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form
        ? new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString()
        : undefined,
    });
    const text = await response.text();
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    if (response.status < 200 || response.status >= 300) {
      return {
        status: response.status,
        body,
        error: {
          status: response.status,
          message: body?.message as string,
          code: body?.code,
          moreInfo: body?.more_info,
        },
      };
    }
    return { status: response.status, body };
  };

  it('creates a workspace, reads it, updates it, pages through workspaces and deletes it', async () => {
    const created = await call('POST', '/v1/Workspaces', { FriendlyName: 'SDK fidelity', MultiTaskEnabled: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ friendly_name: 'SDK fidelity', sid: expect.stringMatching(/^WS/) });
    const sid = created.body?.sid as string;
    expect((await call('GET', `/v1/Workspaces/${sid}`)).body).toMatchObject({ sid, friendly_name: 'SDK fidelity' });

    // Twilio updates an instance by POSTing to it.
    const updated = await call('POST', `/v1/Workspaces/${sid}`, { FriendlyName: 'SDK fidelity 2' });
    expect(updated).toMatchObject({ status: 200, body: { sid, friendly_name: 'SDK fidelity 2' } });
    expect((await call('GET', `/v1/Workspaces/${sid}`)).body).toMatchObject({ friendly_name: 'SDK fidelity 2' });

    const others: string[] = [];
    for (let n = 0; n < 4; n++) {
      others.push((await call('POST', '/v1/Workspaces', { FriendlyName: `SDK page ${n}` })).body?.sid as string);
    }
    // twilio-node's `each`/`list` follow meta.next_page_url until it is null.
    const seen: string[] = [];
    let url: string | null = '/v1/Workspaces?PageSize=2';
    let pages = 0;
    while (url && pages < 100) {
      const page = await call('GET', url);
      expect(page.status).toBe(200);
      const meta = page.body?.meta as { next_page_url?: string | null; page_size: number };
      expect(meta.page_size).toBe(2);
      seen.push(...(page.body?.workspaces as { sid: string }[]).map((workspace) => workspace.sid));
      url = meta.next_page_url ?? null;
      pages += 1;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([sid, ...others]));

    expect((await call('DELETE', `/v1/Workspaces/${sid}`)).status).toBe(204);
    const gone = await call('GET', `/v1/Workspaces/${sid}`);
    expect(gone.error).toMatchObject({ status: 404, message: expect.stringContaining(sid) });
  });

  it('refuses a create without the required FriendlyName with a 400 the RestException names it in', async () => {
    const refused = await call('POST', '/v1/Workspaces', { MultiTaskEnabled: true });
    expect(refused.error?.status).toBe(400);
    expect(refused.error?.message).toMatch(/FriendlyName/);
  });

  it('scopes a workspace’s task queues to it, and refuses a queue under a workspace that does not exist', async () => {
    const a = (await call('POST', '/v1/Workspaces', { FriendlyName: 'A' })).body?.sid as string;
    const b = (await call('POST', '/v1/Workspaces', { FriendlyName: 'B' })).body?.sid as string;
    const queue = await call('POST', `/v1/Workspaces/${a}/TaskQueues`, { FriendlyName: 'Support' });
    expect(queue).toMatchObject({ status: 201, body: { friendly_name: 'Support', workspace_sid: a } });
    const queueSid = queue.body?.sid as string;
    const underA = (await call('GET', `/v1/Workspaces/${a}/TaskQueues`)).body?.task_queues as { sid: string }[];
    const underB = (await call('GET', `/v1/Workspaces/${b}/TaskQueues`)).body?.task_queues as { sid: string }[];
    expect(underA.map((q) => q.sid)).toContain(queueSid);
    expect(underB.map((q) => q.sid)).not.toContain(queueSid);
    expect((await call('GET', `/v1/Workspaces/${b}/TaskQueues/${queueSid}`)).status).toBe(404);
    const missing = await call('POST', `/v1/Workspaces/WS${'f'.repeat(32)}/TaskQueues`, { FriendlyName: 'x' });
    expect(missing.error?.status).toBe(404);
  });
});

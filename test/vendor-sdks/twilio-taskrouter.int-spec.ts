import twilio from 'twilio';

import { serveVendorTwin, VendorTwin } from './vendor-twin';

/**
 * Real: Twilio's own Node SDK (twilio 6.3.1, unmodified) over HTTP against the twin of Twilio's published TaskRouter
 * spec (the shared specs' `twilio-taskrouter`, from twilio/twilio-oai): HTTP Basic with an account SID and the twin's
 * token, its PascalCase form bodies, its paginator following `meta.next_page_url`, its RestException. The SDK has no
 * base-URL option (`edge`/`region` only rewrite twilio.com host names), so the TaskRouter domain's public `baseUrl`
 * is set to the twin's origin — configuration of the client object, not a change to the package. Mocked: nothing.
 */
describe('Twilio TaskRouter twin through twilio-node', () => {
  let twin: VendorTwin;
  let client: twilio.Twilio;
  const accountSid = `AC${'0'.repeat(32)}`;

  beforeAll(async () => {
    twin = await serveVendorTwin('twilio-taskrouter');
    client = twilio(accountSid, twin.token, { autoRetry: false });
    client.taskrouter.baseUrl = twin.origin;
  }, 900_000); // ingesting a large vendor spec on a loaded machine can take minutes

  afterAll(() => twin?.close());

  const restException = async (call: Promise<unknown>): Promise<twilio.RestException> => {
    try {
      await call;
    } catch (error) {
      if (error instanceof twilio.RestException) {
        return error;
      }
      throw error;
    }
    throw new Error('the call succeeded');
  };

  it('creates a workspace, reads it, updates it, lists workspaces with the SDK paginator and removes it', async () => {
    const workspaces = client.taskrouter.v1.workspaces;
    const created = await workspaces.create({ friendlyName: 'SDK fidelity', multiTaskEnabled: true });
    expect(created.sid).toMatch(/^WS/);
    expect(created.friendlyName).toBe('SDK fidelity');
    const sid = created.sid;
    expect((await workspaces(sid).fetch()).friendlyName).toBe('SDK fidelity');

    const updated = await workspaces(sid).update({ friendlyName: 'SDK fidelity 2' });
    expect(updated).toMatchObject({ sid, friendlyName: 'SDK fidelity 2' });
    expect((await workspaces(sid).fetch()).friendlyName).toBe('SDK fidelity 2');

    const others: string[] = [];
    for (let n = 0; n < 4; n++) {
      others.push((await workspaces.create({ friendlyName: `SDK page ${n}` })).sid);
    }
    // Pages of two: the SDK's list walks meta.next_page_url until it is null.
    const pages: number[] = [];
    type Paged = { instances: unknown[]; nextPage(): Promise<Paged> | undefined };
    let page: Paged | undefined = await workspaces.page({ pageSize: 2 });
    while (page && pages.length < 100) {
      pages.push(page.instances.length);
      page = await page.nextPage();
    }
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const listed = (await workspaces.list({ pageSize: 2 })).map((workspace) => workspace.sid);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(expect.arrayContaining([sid, ...others]));
    expect(listed.length).toBe(pages.reduce((sum, count) => sum + count, 0));

    expect(await workspaces(sid).remove()).toBe(true);
    const gone = await restException(workspaces(sid).fetch());
    expect(gone.status).toBe(404);
    expect(gone.message).toContain(sid);
  });

  it('refuses a value outside the spec’s enum with a 400 the RestException names the field in', async () => {
    const refused = await restException(
      client.taskrouter.v1.workspaces.create({
        friendlyName: 'bad order',
        prioritizeQueueOrder: 'sideways' as never,
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/PrioritizeQueueOrder/);
  });

  it('scopes a workspace’s task queues to it, and refuses a queue under a workspace that does not exist', async () => {
    const workspaces = client.taskrouter.v1.workspaces;
    const a = (await workspaces.create({ friendlyName: 'A' })).sid;
    const b = (await workspaces.create({ friendlyName: 'B' })).sid;
    const queue = await workspaces(a).taskQueues.create({ friendlyName: 'Support' });
    expect(queue).toMatchObject({ friendlyName: 'Support', workspaceSid: a });
    expect((await workspaces(a).taskQueues.list()).map((q) => q.sid)).toContain(queue.sid);
    expect((await workspaces(b).taskQueues.list()).map((q) => q.sid)).not.toContain(queue.sid);
    expect((await restException(workspaces(b).taskQueues(queue.sid).fetch())).status).toBe(404);
    const missing = await restException(workspaces(`WS${'f'.repeat(32)}`).taskQueues.create({ friendlyName: 'x' }));
    expect(missing.status).toBe(404);
  });
});

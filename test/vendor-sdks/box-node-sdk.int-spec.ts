import { BoxClient, BoxDeveloperTokenAuth } from 'box-node-sdk';
import { BoxApiError } from 'box-node-sdk/lib/box/errors';

import { serveVendorTwin, VendorTwin } from './vendor-twin';

/**
 * Real: Box's own Node SDK (box-node-sdk 10.12.0, the generated one, unmodified) over HTTP, pointed at the twin with
 * its own `withCustomBaseUrls`, against the twin of Box's published spec (the shared specs' `box`). Mocked: nothing.
 */
describe('Box twin through box-node-sdk', () => {
  let twin: VendorTwin;
  let client: BoxClient;

  beforeAll(async () => {
    twin = await serveVendorTwin('box');
    client = new BoxClient({ auth: new BoxDeveloperTokenAuth({ token: twin.token }) }).withCustomBaseUrls({
      baseUrl: twin.origin,
      uploadUrl: twin.origin,
      oauth2Url: `${twin.origin}/oauth2`,
    });
  }, 900_000); // ingesting a large vendor spec on a loaded machine can take minutes

  afterAll(() => twin?.close());

  const apiError = async (call: Promise<unknown>): Promise<BoxApiError> => {
    try {
      await call;
    } catch (error) {
      if (error instanceof BoxApiError) {
        return error;
      }
      throw error;
    }
    throw new Error('the call succeeded');
  };

  it('creates a folder, reads it, renames it and deletes it; a read after that is the SDK’s BoxApiError 404', async () => {
    const created = await client.folders.createFolder({ name: 'SDK fidelity', parent: { id: '0' } });
    expect(created).toMatchObject({ type: 'folder', name: 'SDK fidelity' });
    const read = await client.folders.getFolderById(created.id);
    expect(read).toMatchObject({ id: created.id, name: 'SDK fidelity' });

    const renamed = await client.folders.updateFolderById(created.id, { requestBody: { name: 'SDK fidelity 2' } });
    expect(renamed).toMatchObject({ id: created.id, name: 'SDK fidelity 2' });
    expect(await client.folders.getFolderById(created.id)).toMatchObject({ name: 'SDK fidelity 2' });

    await client.folders.deleteFolderById(created.id);
    const gone = await apiError(client.folders.getFolderById(created.id));
    expect(gone.responseInfo.statusCode).toBe(404);
    expect(gone.message).toMatch(/404/);
  });

  it('answers a read of a deleted folder with Box’s own not_found code, status and message', async () => {
    const created = await client.folders.createFolder({ name: 'SDK gone', parent: { id: '0' } });
    await client.folders.deleteFolderById(created.id);
    const gone = await apiError(client.folders.getFolderById(created.id));
    expect(gone.responseInfo.statusCode).toBe(404);
    // box-node-sdk keeps `code` as the JSON text of the body's field (quotes included), from any server.
    expect(gone.responseInfo.code).toBe(JSON.stringify('not_found'));
    expect(gone.responseInfo.body).toMatchObject({ type: 'error', status: 404, code: 'not_found' });
    expect(String((gone.responseInfo.body as { message?: unknown }).message)).toContain(created.id);
  });

  it('parses a refused create into a BoxApiError with the status and Box’s error code', async () => {
    const refused = await apiError(client.folders.createFolder({ name: '', parent: { id: '0' } }));
    expect(refused.responseInfo.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.responseInfo.statusCode).toBeLessThan(500);
    expect(refused.responseInfo.code).toEqual(expect.any(String));
  });

  // The Box SDK has no paginator of its own: a caller pages getFolderItems with offset/limit (or marker) itself. A
  // folder's items are the folders and files whose body says `parent.id` (the twin finds that from the spec's schemas).
  it('lists the folders created under a parent by paging getFolderItems with offset and limit', async () => {
    const parent = await client.folders.createFolder({ name: 'SDK parent', parent: { id: '0' } });
    const names = ['SDK child 1', 'SDK child 2', 'SDK child 3'];
    const children = [];
    for (const name of names) {
      children.push(await client.folders.createFolder({ name, parent: { id: parent.id } }));
    }
    await client.folders.createFolder({ name: 'SDK elsewhere', parent: { id: children[0].id } });
    const seen: { id: string; name?: string }[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await client.folders.getFolderItems(parent.id, { queryParams: { offset, limit: 2 } });
      const entries = (page.entries ?? []) as readonly { id: string; name?: string }[];
      seen.push(...entries);
      expect(page.totalCount).toBe(names.length);
      if (entries.length < 2) {
        break;
      }
    }
    expect(seen.map((item) => item.id)).toEqual(children.map((child) => child.id));
    expect(seen.map((item) => item.name)).toEqual(names);
    const missing = await apiError(client.folders.getFolderItems('999999999999'));
    expect(missing.responseInfo.statusCode).toBe(404);
    // The root folder `0` is no record of the twin's, yet it holds what was created in it.
    const root = await client.folders.getFolderItems('0', { queryParams: { limit: 1000 } });
    expect((root.entries ?? []).map((item) => item.id)).toContain(parent.id);
  });
});

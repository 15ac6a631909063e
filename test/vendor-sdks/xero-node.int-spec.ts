import { XeroClient } from 'xero-node';

import { serveVendorTwin, VendorTwin } from './vendor-twin';

/** What xero-node rejects with when the API answers an error: its ApiError, serialised (`generateError()`). */
interface XeroApiError {
  response: { statusCode: number; body: unknown };
  body: unknown;
}

/**
 * Real: Xero's own Node SDK (xero-node 20.0.0, unmodified) over HTTP, its ProjectApi pointed at the twin with its own
 * `basePath`, against the twin of Xero's published Projects spec (the shared specs' `xero-projects`). Mocked: nothing.
 */
describe('Xero Projects twin through xero-node', () => {
  let twin: VendorTwin;
  let xero: XeroClient;
  const tenant = 'b8f8ec5a-4f7c-4a7e-9a43-2f2b1d8c9e01';

  beforeAll(async () => {
    twin = await serveVendorTwin('xero-projects');
    xero = new XeroClient();
    xero.setTokenSet({ access_token: twin.token, token_type: 'Bearer' });
    xero.projectApi.basePath = `${twin.origin}${twin.episode.twin.services.get(twin.serviceName)?.basePath ?? ''}`;
  }, 900_000); // ingesting a large vendor spec on a loaded machine can take minutes

  afterAll(() => twin?.close());

  const apiError = async (call: Promise<unknown>): Promise<XeroApiError> => {
    try {
      await call;
    } catch (error) {
      if (typeof error === 'string') {
        return JSON.parse(error) as XeroApiError;
      }
      throw error;
    }
    throw new Error('the call succeeded');
  };

  it('creates a project, reads it, lists it page by page and deletes a task of it as Xero does', async () => {
    const created = (await xero.projectApi.createProject(tenant, { name: 'SDK fidelity', estimateAmount: 1200 })).body;
    expect(created).toMatchObject({ name: 'SDK fidelity', projectId: expect.any(String) });
    const projectId = created.projectId as string;
    expect((await xero.projectApi.getProject(tenant, projectId)).body).toMatchObject({
      projectId,
      name: 'SDK fidelity',
    });

    // xero-node has no paginator: a caller walks `page` up to `pagination.pageCount` itself.
    const seen: string[] = [];
    let page = 1;
    let pageCount = 1;
    do {
      const answer = (await xero.projectApi.getProjects(tenant, undefined, undefined, undefined, page, 5)).body;
      seen.push(...(answer.items ?? []).map((project) => project.projectId as string));
      pageCount = answer.pagination?.pageCount ?? 1;
      page += 1;
    } while (page <= pageCount && page < 100);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(projectId);

    const task = (
      await xero.projectApi.createTask(tenant, projectId, {
        name: 'Design',
        rate: { currency: 'NZD' as never, value: 90 },
        chargeType: 'TIME' as never,
      })
    ).body;
    expect(task).toMatchObject({ name: 'Design', taskId: expect.any(String) });
    await xero.projectApi.deleteTask(tenant, projectId, task.taskId as string);
    const gone = await apiError(xero.projectApi.getTask(tenant, projectId, task.taskId as string));
    expect(gone.response.statusCode).toBe(404);
  });

  it('updates a project with updateProject (PUT, 204) so that a later getProject reads the new name', async () => {
    const created = (await xero.projectApi.createProject(tenant, { name: 'SDK update', estimateAmount: 10 })).body;
    const projectId = created.projectId as string;
    const updated = await xero.projectApi.updateProject(tenant, projectId, { name: 'SDK update 2' });
    expect(updated.response.status).toBe(204);
    expect((await xero.projectApi.getProject(tenant, projectId)).body).toMatchObject({
      projectId,
      name: 'SDK update 2',
    });
  });

  it('rejects a create without a name with the SDK’s own error, status and Xero’s message', async () => {
    const refused = await apiError(xero.projectApi.createProject(tenant, {} as never));
    expect(refused.response.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.response.statusCode).toBeLessThan(500);
    expect(JSON.stringify(refused.body ?? refused.response.body)).toMatch(/name/i);
  });
});

import { runDriver, serveVendorTwin, VendorTwin } from './vendor-twin';

/**
 * Real: DigitalOcean's official TypeScript client (@digitalocean/dots 1.19.0, unmodified) in plain Node, over HTTP,
 * against the twin of DigitalOcean's own published spec (the shared specs' `digitalocean`). Mocked: nothing.
 */
describe('DigitalOcean twin through @digitalocean/dots', () => {
  let twin: VendorTwin;
  let steps: Awaited<ReturnType<typeof runDriver>>;

  beforeAll(async () => {
    twin = await serveVendorTwin('digitalocean');
    steps = await runDriver('digitalocean-dots.mjs', [twin.origin, twin.token]);
  }, 900_000); // ingesting a large vendor spec on a loaded machine can take minutes

  afterAll(() => twin?.close());

  it('creates an SSH key and reads it back with the fields the SDK sent', () => {
    const created = steps.get('create');
    expect(created).toMatchObject({ value: { id: expect.any(Number), name: 'sdk key' } });
    const read = steps.get('read');
    expect(read?.value).toEqual(created?.value);
  });

  it('updates the key and the update is what later reads see', () => {
    expect(steps.get('update')).toMatchObject({ value: { name: 'sdk key renamed' } });
    expect(steps.get('read after update')).toMatchObject({ value: { name: 'sdk key renamed' } });
  });

  it('lists a page of the size the SDK asked for, counting every key in meta.total', () => {
    const list = steps.get('list')?.value as { total: number; firstPage: number };
    // Twenty keys drawn for the episode's world, and the five the SDK created.
    expect(list.total).toBe(25);
    expect(list.firstPage).toBe(2);
  });

  it('lists every key by following the links.pages.next the twin hands back, page by page', () => {
    const list = steps.get('list')?.value as { pages: number; ids: number[]; created: number[] };
    expect(list.pages).toBe(13);
    expect(list.ids).toHaveLength(25);
    expect(new Set(list.ids).size).toBe(25);
    expect(list.ids).toEqual(expect.arrayContaining(list.created));
  });

  it('deletes the key, and a read after that is the SDK’s own 404 error', () => {
    expect(steps.get('delete')).toMatchObject({ value: true });
    expect(steps.get('read after delete')).toMatchObject({
      error: { type: 'ErrorEscaped', status: 404, id: 'not_found', message: expect.any(String) },
    });
  });

  it('parses a refused create into its own error type, with the status and the problem', () => {
    expect(steps.get('invalid create')).toMatchObject({
      error: { type: 'ErrorEscaped', status: expect.any(Number), id: expect.any(String) },
    });
    const error = steps.get('invalid create')?.error as { status: number; message: string };
    expect(error.status).toBeGreaterThanOrEqual(400);
    expect(error.status).toBeLessThan(500);
    expect(error.message).toMatch(/public_key/);
  });
});

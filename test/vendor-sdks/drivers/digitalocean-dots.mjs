// Drives DigitalOcean's official TypeScript client (@digitalocean/dots, unmodified) against a twin, as a user of the
// SDK would: an ES module in plain Node (the package is ESM-only), its own request adapter pointed at the twin's base
// URL. Prints one JSON line per step: {step, value} or {step, error: {type, status, …}}; the test holds them.
// Usage: node digitalocean-dots.mjs <baseUrl> <token>
import { createDigitalOceanClient, DigitalOceanApiKeyAuthenticationProvider } from '@digitalocean/dots';
import { FetchRequestAdapter } from '@microsoft/kiota-http-fetchlibrary';

const [baseUrl, token] = process.argv.slice(2);
const adapter = new FetchRequestAdapter(new DigitalOceanApiKeyAuthenticationProvider(token));
adapter.baseUrl = baseUrl;
const client = createDigitalOceanClient(adapter);
const keys = client.v2.account.keys;

const step = async (name, call) => {
  try {
    process.stdout.write(`${JSON.stringify({ step: name, value: await call() })}\n`);
  } catch (error) {
    process.stdout.write(
      `${JSON.stringify({
        step: name,
        error: {
          // Kiota's error factories deserialize the body into the spec's error model (a plain object: `message` is
          // kept as `messageEscaped`); only an unmapped status gives a DefaultApiError.
          type:
            error instanceof Error ? error.constructor.name : 'messageEscaped' in error ? 'ErrorEscaped' : 'unknown',
          status: error?.responseStatusCode,
          id: error?.id,
          message: error?.messageEscaped ?? error?.message,
        },
      })}\n`,
    );
  }
};

const publicKey = (n) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${String(n).padStart(42, 'A')} sdk-${n}@example.test`;
let created;
await step('create', async () => {
  created = (await keys.post({ name: 'sdk key', publicKey: publicKey(0) }))?.sshKey;
  return created;
});
await step('read', async () => (await keys.bySsh_key_identifier(created.id).get())?.sshKey);
await step(
  'update',
  async () => (await keys.bySsh_key_identifier(created.id).put({ name: 'sdk key renamed' }))?.sshKey,
);
await step('read after update', async () => (await keys.bySsh_key_identifier(created.id).get())?.sshKey);
for (let n = 1; n <= 4; n++) {
  await step(`create ${n}`, async () => (await keys.post({ name: `sdk key ${n}`, publicKey: publicKey(n) }))?.sshKey);
}
// The SDK has no paginator of its own: a page's `links.pages.next` is followed with the request builder's withUrl,
// the generated client's way to call a URL the API handed back. The spec makes `pages` an anyOf of backward links,
// forward links or anything, and the generated deserializer always takes the first branch (first, prev): a `next`
// lands in the model's additionalData, whatever the server, so that is where a user of the SDK finds it.
const nextOf = (page) => page?.links?.pages?.next ?? page?.links?.pages?.additionalData?.next;
await step('list', async () => {
  const pages = [];
  let page = await keys.get({ queryParameters: { perPage: 2 } });
  pages.push(page);
  while (nextOf(page) && pages.length < 100) {
    page = await keys.withUrl(nextOf(page)).get();
    pages.push(page);
  }
  return {
    pages: pages.length,
    total: pages[0]?.meta?.total,
    firstPage: (pages[0]?.sshKeys ?? []).length,
    ids: pages.flatMap((p) => (p?.sshKeys ?? []).map((k) => k.id)),
    created: [created.id],
  };
});
await step('delete', async () => {
  await keys.bySsh_key_identifier(created.id).delete();
  return true;
});
await step('read after delete', async () => (await keys.bySsh_key_identifier(created.id).get())?.sshKey);
await step('invalid create', async () => (await keys.post({ name: 'no public key' }))?.sshKey);

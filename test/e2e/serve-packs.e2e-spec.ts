import { json } from '@test/support/gateway-harness';
import { serve } from '@test/support/serve-runner';
import { createTestDatabase } from '@test/support/test-services';

/** Real: the built CLI serving the three twin packs over HTTP on PostgreSQL. Mocked: nothing. */
describe('mirror serve with twin packs', () => {
  it('prints each pack service with the agent’s token, and the twins answer the agent as the same person', async () => {
    const database = await createTestDatabase();
    const served = await serve(database.url, ['twins/fixtures/workplace', '--seed', '4']);
    try {
      const byName = new Map(served.ready.services.map((service) => [service.name, service]));
      expect([...byName.keys()]).toEqual(['slack', 'email', 'erp']);
      const auth = (name: string) => ({ authorization: `Bearer ${byName.get(name)?.agentToken ?? ''}` });

      const slack = await json(await fetch(`${byName.get('slack')?.baseUrl}/auth.test`, { headers: auth('slack') }));
      const mail = await json(await fetch(`${byName.get('email')?.baseUrl}/me`, { headers: auth('email') }));
      const erp = await json(await fetch(`${byName.get('erp')?.baseUrl}/me`, { headers: auth('erp') }));
      expect(slack).toMatchObject({ ok: true, user: 'procurement.assistant' });
      expect(mail).toMatchObject({ mail: 'procurement.assistant@acme.example' });
      expect(erp).toMatchObject({ id: 'E0000', email: 'procurement.assistant@acme.example', role: 'agent' });

      // A change through the gateway is in the episode log in PostgreSQL before it is answered: after SIGKILL, a new
      // `serve` of the same stack and seed rebuilds the same episode with the message in it.
      const posted = await fetch(`${served.ready.services[0].gatewayUrl}/api/chat.postMessage`, {
        method: 'POST',
        headers: { ...auth('slack'), 'content-type': 'application/json' },
        body: JSON.stringify({ channel: '#general', text: 'hello from the gateway' }),
      });
      const message = await json(posted);
      expect(message).toMatchObject({ ok: true });
      served.child.kill('SIGKILL');
      await new Promise((resolve) => served.child.once('exit', resolve));
      const again = await serve(database.url, ['twins/fixtures/workplace', '--seed', '4']);
      served.child = again.child;
      expect(again.ready.episodeId).toBe(served.ready.episodeId);
      const history = await json(
        await fetch(`${again.ready.services[0].baseUrl}/conversations.history?channel=${message.channel}&limit=1`, {
          headers: auth('slack'),
        }),
      );
      expect(history.messages).toEqual([expect.objectContaining({ ts: message.ts, text: 'hello from the gateway' })]);
    } finally {
      if (served.child.exitCode === null) {
        served.child.kill('SIGTERM');
        await new Promise((resolve) => served.child.once('exit', resolve));
      }
      await database.drop();
    }
  });
});

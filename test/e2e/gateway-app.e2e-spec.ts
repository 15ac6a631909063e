import { json } from '@test/support/gateway-harness';
import { operatorHeaders } from '@test/support/operator-key';
import { startGatewayProcess } from '@test/support/gateway-process';
import { createTestDatabase } from '@test/support/test-services';

/** Real: the built gateway process as deployed, PostgreSQL, a stack stored by the CLI. Mocked: nothing. */
describe('gateway app', () => {
  it('serves episodes of stored stacks from its own process', async () => {
    const database = await createTestDatabase();
    const { version, child } = await startGatewayProcess(database.url);
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let output = '';
        const onData = (chunk: Buffer): void => {
          output += chunk.toString();
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (found) {
            resolve(found[1]);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
      });
      // An agent has no operator key: the operator routes refuse it.
      const anonymous = await fetch(`${base}/_mirror/episodes`, { method: 'POST', body: '{}' });
      expect(anonymous.status).toBe(401);
      const created = await fetch(`${base}/_mirror/episodes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ stackVersion: version.slice(0, 12), seed: 2 }),
      });
      expect(created.status).toBe(201);
      const episode = await json(created);
      expect(episode.stackVersion).toBe(version);
      const route = `${base}/e/${episode.id as string}/procurement/items?per_page=5`;
      // The spec declares bearer auth: without the episode's token, the spec's 401; with it (from the operator), data.
      expect((await fetch(route)).status).toBe(401);
      const issued = await fetch(`${base}/_mirror/episodes/${episode.id as string}/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ service: 'procurement', principal: 'agent' }),
      });
      const { token } = await json(issued);
      const items = await fetch(route, { headers: { authorization: `Bearer ${String(token)}` } });
      expect(items.status).toBe(200);
      expect(await json(items)).toHaveLength(5);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
      await database.drop();
    }
  });
});

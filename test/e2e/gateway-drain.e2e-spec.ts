import * as http from 'node:http';

import { operatorHeaders } from '@test/support/operator-key';
import { startGatewayProcess } from '@test/support/gateway-process';
import { createTestDatabase } from '@test/support/test-services';

/**
 * Real: the built gateway process, PostgreSQL, SIGTERM. A write is held in flight by sending its body only after the
 * signal: `Expect: 100-continue` makes the gateway say it has read the request's head before the body comes, so the
 * request is surely in flight when the signal arrives.
 */
describe('gateway app on SIGTERM', () => {
  it('refuses new connections at once, answers the write in flight with Connection: close, then exits', async () => {
    const database = await createTestDatabase();
    const { version, child } = await startGatewayProcess(database.url);
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const onData = (chunk: Buffer): void => {
          output += chunk.toString();
          const found = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
          if (found) {
            resolve(Number(found[1]));
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        void exited.then((code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
      });

      const body = JSON.stringify({ stackVersion: version, seed: 3 });
      const write = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/_mirror/episodes',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
          ...operatorHeaders,
        },
      });
      const answered = new Promise<{ status: number; connection: string | undefined; text: string }>(
        (resolve, reject) => {
          write.on('error', reject);
          write.on('response', (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }),
            );
          });
        },
      );
      await new Promise<void>((resolve) => write.once('continue', resolve));

      child.kill('SIGTERM');
      // A client that comes now is refused before it sends anything, so it can go to another gateway safely.
      const errorCode = (error: unknown): unknown => (error as { cause?: { code?: unknown } }).cause?.code;
      let refused: unknown;
      const resets: string[] = [];
      while (refused === undefined || errorCode(refused) !== 'ECONNREFUSED') {
        // Until the signal is handled, a health check is still answered (by a 503 once draining has begun); a
        // connection the kernel queued as the listener closed is reset, never answered (so never acted on): asked again.
        refused = await fetch(`http://127.0.0.1:${port}/_mirror/health`).then(
          (response) => void response.body?.cancel(),
          (error: unknown) => error,
        );
        if (refused !== undefined && errorCode(refused) !== 'ECONNREFUSED') {
          resets.push(String(errorCode(refused)));
        }
      }
      expect(resets.filter((code) => !/^(ECONNRESET|UND_ERR_SOCKET|EPIPE)$/.test(code))).toEqual([]);
      expect(refused).toMatchObject({ cause: { code: 'ECONNREFUSED' } });

      write.end(body);
      const answer = await answered;
      expect(answer.status).toBe(201);
      expect(answer.connection).toBe('close');
      expect(JSON.parse(answer.text)).toMatchObject({ stackVersion: version });
      expect(await exited).toBe(0);
      expect(output).toContain('draining');
      expect(output).toContain('stopped');
    } finally {
      child.kill('SIGKILL');
      await database.drop();
    }
  });
});

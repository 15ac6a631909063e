import * as fs from 'node:fs';
import { createServer } from 'node:http';

/**
 * The ceiling: Node's own HTTP server answering a fixed JSON body, nothing else. Given a file, it answers that file's
 * bytes: the same body the twin sends, so response size does not decide the comparison.
 */
const bodyFile = process.argv[3];
const body = bodyFile
  ? fs.readFileSync(bodyFile, 'utf8')
  : JSON.stringify({ id: 1, name: 'example', status: 'active', created_at: '2026-01-01T00:00:00Z' });
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});

import * as fs from 'node:fs';

import { RawData, WebSocket } from 'ws';

interface InspectorReply {
  id?: number;
  result?: { usedSize?: number };
  error?: { message: string };
}

/** The inspector's WebSocket URL, once the process has printed it to the stderr file. */
export const inspectorUrlIn = (stderrFile: string): string | undefined =>
  /Debugger listening on (ws:\/\/\S+)/.exec(fs.readFileSync(stderrFile, 'utf8'))?.[1];

/**
 * Live heap of another Node process in MB, through its inspector: a full collection first, then V8's used heap. RSS
 * alone cannot tell a leak from a heap filling toward its limit between collections; the used size right after a
 * forced collection can. The process must run with `--inspect=127.0.0.1:0`; its stderr names the socket.
 */
export const liveHeapOf = async (inspectorUrl: string): Promise<number> => {
  const socket = new WebSocket(inspectorUrl);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const pending = new Map<number, (reply: InspectorReply) => void>();
  // The inspector sends each reply as one text frame, which ws hands over as one Buffer.
  socket.on('message', (data: RawData) => {
    const reply = JSON.parse((data as Buffer).toString('utf8')) as InspectorReply;
    if (reply.id !== undefined) {
      pending.get(reply.id)?.(reply);
    }
  });
  let next = 0;
  const call = (method: string) =>
    new Promise<InspectorReply>((resolve, reject) => {
      const id = ++next;
      pending.set(id, (reply) =>
        reply.error ? reject(new Error(`${method}: ${reply.error.message}`)) : resolve(reply),
      );
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const { result } = await call('Runtime.getHeapUsage');
    return (result?.usedSize ?? 0) / 2 ** 20;
  } finally {
    socket.close();
  }
};

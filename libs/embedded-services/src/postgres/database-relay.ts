import * as net from 'node:net';

/**
 * A local TCP port that forwards each connection to wherever the database is served now. Clients keep one address
 * while the server behind it changes (another process's, then this process's own after a takeover). While the target
 * is being found, new connections wait; a connection the target refuses asks for the target again and retries, so only
 * connections already open when a server goes away fail.
 */
export class DatabaseRelay {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private target: Promise<number>;
  private settle?: { resolve(port: number): void; reject(error: Error): void };

  /** `unreachable` is told when the target refuses or drops a connection, and settles once a new target is set. */
  constructor(private readonly unreachable: () => Promise<void>) {
    this.target = this.pending();
  }

  async start(): Promise<number> {
    const server = net.createServer((client) => {
      this.track(client);
      client.pause();
      void this.forward(client, 3);
    });
    // Like any client's pool, the relay does not keep the process alive: connections to it come from this process.
    server.unref();
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return (server.address() as net.AddressInfo).port;
  }

  pointAt(port: number): void {
    if (this.settle) {
      this.settle.resolve(port);
      this.settle = undefined;
    }
    this.target = Promise.resolve(port);
  }

  /** New connections wait until the next pointAt. */
  suspend(): void {
    if (!this.settle) {
      this.target = this.pending();
    }
  }

  /** Connections waiting for a target are closed; later ones wait for the next pointAt. */
  fail(error: Error): void {
    this.settle?.reject(error);
    this.settle = undefined;
    this.target = this.pending();
  }

  async stop(): Promise<void> {
    this.fail(new Error('the database relay stopped'));
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private pending(): Promise<number> {
    const target = new Promise<number>((resolve, reject) => (this.settle = { resolve, reject }));
    target.catch(() => undefined);
    return target;
  }

  private async forward(client: net.Socket, attempts: number): Promise<void> {
    let port: number;
    try {
      port = await this.target;
    } catch {
      client.destroy();
      return;
    }
    if (client.destroyed) {
      return;
    }
    const upstream = net.connect({ port, host: '127.0.0.1' });
    this.track(upstream);
    let connected = false;
    const dropUpstream = (): void => void upstream.destroy();
    client.once('close', dropUpstream);
    upstream.once('connect', () => {
      connected = true;
      upstream.setNoDelay(true);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.once('close', () => {
      if (connected) {
        // The client hung up (normal), or the server went away under an open connection: the client sees it closed
        // and the target is checked again.
        if (!client.destroyed && !client.readableEnded) {
          client.destroy();
          void this.unreachable();
        }
        return;
      }
      client.off('close', dropUpstream);
      // Refused before it connected: nothing was sent, so the same client can be forwarded again.
      if (attempts > 1 && !client.destroyed) {
        void this.unreachable()
          .then(() => this.forward(client, attempts - 1))
          .catch(() => client.destroy());
      } else {
        client.destroy();
      }
    });
  }

  private track(socket: net.Socket): void {
    // A reset on either side ends in 'close', handled above; unhandled, it would end the process.
    socket.on('error', () => undefined);
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

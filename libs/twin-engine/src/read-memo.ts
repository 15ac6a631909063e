import { TwinRequest, TwinResponse } from './twin-http';

/**
 * Answers to reads, kept until the episode's next write. A read is a pure function of the episode's state and the
 * request (the "deterministic for a given seed and request"), so between two writes the same request gets
 * the same answer; agents poll (inboxes, histories, a PO's status) far more often than they change anything, and
 * re-running validation and envelope building per poll was most of a read's cost.
 *
 * The key is everything a read may depend on: service, method, path, raw query, the URL the answer's links are built
 * from, the credentials and the headers the service's operations declare. Bounded: when full it starts again, so an
 * agent walking many distinct URLs costs at most `capacity` answers per episode.
 */
export class ReadMemo {
  private seq = -1;
  private readonly answers = new Map<string, TwinResponse>();

  constructor(private readonly capacity = 256) {}

  static key(serviceName: string, request: TwinRequest, url: string, headerNames: readonly string[]): string {
    let key = `${serviceName}\u0000${request.method}\u0000${request.path}\u0000${request.search ?? request.query.toString()}\u0000${url}`;
    // A header sent empty is not a header left out (a required one is present when empty): they key apart.
    for (const name of ['authorization', ...headerNames]) {
      const value = request.headers[name];
      key += value === undefined ? '\u0000\u0001' : `\u0000=${value}`;
    }
    return key;
  }

  /** The answer recorded at this state sequence number, if any; a newer sequence number forgets every answer. */
  get(key: string, seq: number): TwinResponse | undefined {
    if (seq !== this.seq) {
      this.answers.clear();
      this.seq = seq;
      return undefined;
    }
    return this.answers.get(key);
  }

  set(key: string, seq: number, response: TwinResponse): void {
    if (seq !== this.seq) {
      this.answers.clear();
      this.seq = seq;
    }
    if (this.answers.size >= this.capacity) {
      this.answers.clear();
    }
    // Shared by every later reader: frozen so that no transport can change what the next one is sent.
    Object.freeze(response.headers);
    this.answers.set(key, Object.freeze(response));
  }
}

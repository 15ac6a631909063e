import { Redactor } from '@libs/redaction';
import type { CallObserver, ObservedCall } from '@libs/twin-engine';

import { EpisodeCallRepository, EpisodeCallRow } from './repositories/episode-call.repository';

/** How often buffered calls are written, and how many make a batch written at once. */
const flushEveryMs = 500;
const batchSize = 500;
/** Beyond this many unwritten calls (the database is down or slow), new ones are counted and dropped. */
const maxBuffered = 20_000;
/** A read's query string is the caller's text (a token or an address may ride in it): redacted before it is stored. */
const pathRedactor = new Redactor();

/**
 * Records the calls twins answer without an event (reads, mostly) off the answer's path: buffered, written in
 * batches every half second, and on `close`. Best effort by design: a read changes nothing, so one lost in a crash or
 * a database outage costs the review a line, never the episode its state or grade; what is dropped is counted, and
 * each failed write reported with the count so far.
 */
export class EpisodeCallLog implements CallObserver {
  private buffer: ObservedCall[] = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  /** Calls not recorded (buffer full or a failed write), for operators. */
  dropped = 0;

  constructor(
    private readonly calls: EpisodeCallRepository,
    private readonly onError: (message: string) => void,
  ) {
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  observe(call: ObservedCall): void {
    if (this.buffer.length >= maxBuffered) {
      this.dropped += 1;
      return;
    }
    this.buffer.push(call);
    if (this.buffer.length >= batchSize) {
      void this.flush();
    }
  }

  /** Writes what is buffered, after any write still running (so calls land in the order they were answered). */
  flush(): Promise<void> {
    const batch = this.buffer;
    if (batch.length === 0) {
      return this.writing;
    }
    this.buffer = [];
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(batch: readonly ObservedCall[]): Promise<void> {
    const byTenant = new Map<string, EpisodeCallRow[]>();
    for (const { tenantId, ...call } of batch) {
      const rows = byTenant.get(tenantId) ?? [];
      rows.push({ ...call, path: pathRedactor.text(call.path).value });
      byTenant.set(tenantId, rows);
    }
    for (const [tenantId, rows] of byTenant) {
      try {
        await this.calls.append(tenantId, rows);
      } catch (error) {
        this.dropped += rows.length;
        this.onError(
          `${rows.length} calls that changed nothing were not recorded (${this.dropped} so far): ${(error as Error).message}`,
        );
      }
    }
  }
}

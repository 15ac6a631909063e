import { hashSeed, seededRandom } from '@libs/synthetic-data';

import { FaultRule, FaultSettings } from './episode-events';

export type FaultDecision =
  | { kind: 'none'; delayMs: number }
  | { kind: 'error'; delayMs: number }
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  | { kind: 'timeout'; delayMs: number };

/**
 * Decides, per request, whether a configured fault strikes. Seeded per episode, so a rerun of the same episode with
 * the same requests meets the same faults; rate limits count requests in wall-clock windows, since they exist to
 * pace a client in real time.
 */
export class FaultInjector {
  private readonly random: () => number;
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private settings: FaultSettings | undefined,
    seed: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.random = seededRandom(hashSeed(seed, 'faults'));
  }

  configure(settings: FaultSettings | undefined): void {
    this.settings = settings;
    this.windows.clear();
  }

  get active(): boolean {
    return Boolean(
      this.settings &&
      (Object.keys(this.settings.services ?? {}).length > 0 || Object.keys(this.settings.operations ?? {}).length > 0),
    );
  }

  decide(service: string, operationId: string): FaultDecision {
    const rule: FaultRule | undefined = this.settings?.operations?.[operationId] ?? this.settings?.services?.[service];
    if (!rule) {
      return { kind: 'none', delayMs: 0 };
    }
    if (rule.rateLimit) {
      const key = this.settings?.operations?.[operationId] ? `op:${operationId}` : `service:${service}`;
      const now = this.clock();
      const windowMs = rule.rateLimit.windowSeconds * 1000;
      const window = this.windows.get(key);
      if (!window || now - window.start >= windowMs) {
        this.windows.set(key, { start: now, count: 1 });
      } else if (window.count >= rule.rateLimit.requests) {
        return {
          kind: 'rate-limited',
          retryAfterSeconds: Math.max(1, Math.ceil((window.start + windowMs - now) / 1000)),
        };
      } else {
        window.count++;
      }
    }
    const [low, high] = rule.latencyMs ?? [0, 0];
    const delayMs = Math.round(low + this.random() * Math.max(0, high - low));
    if (rule.timeoutRate && this.random() < rule.timeoutRate) {
      return { kind: 'timeout', delayMs: rule.timeoutMs ?? 30_000 };
    }
    if (rule.errorRate && this.random() < rule.errorRate) {
      return { kind: 'error', delayMs };
    }
    return { kind: 'none', delayMs };
  }
}

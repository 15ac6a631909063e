import { createHash } from 'node:crypto';

import { fetchInProcess, GatewayAnswer } from './in-process-gateways';

/**
 * How every process of a scaled-out deployment reaches an episode's twins when there are several gateways: each
 * episode has ONE gateway at a time, the same for every process (the agent's runner, the personas' activities on any
 * worker), chosen by rendezvous hashing of the episode id over the gateways; when it cannot be reached, the episode
 * moves to the next gateway in its own order, which rebuilds it from the event log.
 *
 * Never round-robin: a gateway holds an episode in memory and writes its next event at the sequence number it knows,
 * so two gateways serving one episode at once would answer reads from stale state and collide on writes.
 */
const score = (episodeId: string, gateway: string): number =>
  createHash('sha256').update(`${gateway}\n${episodeId}`).digest().readUInt32BE(0);

/** The gateways in the order an episode tries them: its owner first, then where it moves if the owner is gone. */
export const gatewayOrder = (episodeId: string, gateways: readonly string[]): string[] =>
  // One gateway (a process hosting its own twins) is every twin call's case: no hashing on that hot path.
  gateways.length === 1
    ? [gateways[0]]
    : [...new Set(gateways)].sort((a, b) => score(episodeId, b) - score(episodeId, a) || a.localeCompare(b));

/** Gateways this process found unreachable, until when: tried last meanwhile (an episode does not flap back and forth). */
const unreachableUntil = new Map<string, number>();
const rememberedMs = 10_000;
/** When this process last found each gateway unreachable. */
const lastUnreachable = new Map<string, number>();

/**
 * No HTTP answer at all: fetch's own failure (refused, reset, closed), never a status from a twin. By name, not
 * `instanceof`: fetch's TypeError may come from another realm (a test's sandbox).
 */
const isUnreachable = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as Error).name === 'TypeError' &&
  (error as Error).message === 'fetch failed';

/** Refused before a byte was sent: the request reached no gateway, so sending it to another changes nothing twice. */
const neverSent = (error: unknown): boolean => {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
};

/**
 * Sends a request for an episode to its gateway, and to the next one while a gateway cannot be reached. A request
 * that may have reached a gateway that then died (a reset mid-request) is sent again only when `resendable` (a read,
 * or a write with an idempotency key the twins answer once); otherwise the failure is the caller's, as fetch's own
 * `TypeError`, so a runner counts it as Mirror's fault, not the agent's.
 */
export const fetchOnGateways = async (
  gateways: readonly string[],
  episodeId: string,
  path: string,
  init: RequestInit,
  resendable: boolean,
): Promise<GatewayAnswer> => {
  const order = gatewayOrder(episodeId, gateways);
  const now = Date.now();
  const down = (gateway: string) => (unreachableUntil.get(gateway) ?? 0) > now;
  let failure: unknown;
  for (const gateway of [...order.filter((g) => !down(g)), ...order.filter(down)]) {
    try {
      // A gateway of this very process is called without the loopback (see `serveInProcess`).
      const response = await (fetchInProcess(gateway, path, init) ?? fetch(`${gateway}${path}`, init));
      unreachableUntil.delete(gateway);
      return response;
    } catch (error) {
      if (!isUnreachable(error)) {
        throw error;
      }
      unreachableUntil.set(gateway, Date.now() + rememberedMs);
      lastUnreachable.set(gateway, Date.now());
      failure = error;
      if (!resendable && !neverSent(error)) {
        break;
      }
    }
  }
  throw failure;
};

/**
 * Whether a gateway was lost since `since` (ms): found unreachable by this process meanwhile, or unreachable now. An
 * agent that calls its twins by their URLs (not through the runner) sees only its fetches fail when its episode's
 * gateway dies, which it may take for the twins' answer: the runner asks this instead of trusting its outcome.
 */
export const gatewayLostSince = async (gateway: string, since: number): Promise<boolean> => {
  if ((lastUnreachable.get(gateway) ?? 0) >= since) {
    return true;
  }
  try {
    await (await fetch(`${gateway}/_mirror/health`)).arrayBuffer();
    return false;
  } catch (error) {
    if (!isUnreachable(error)) {
      throw error;
    }
    return true;
  }
};

/**
 * The gateway a new episode starts on: the first of its order that is up and not draining (its health answers 200).
 * Every other process reaches the same one, skipping those it cannot reach, so an episode never starts on a gateway
 * already gone, and its gateway counts as lost (`gatewayLostSince`) only if it dies while the episode runs.
 */
export const episodeGateway = async (episodeId: string, gateways: readonly string[]): Promise<string> => {
  const order = gatewayOrder(episodeId, gateways);
  for (const gateway of order) {
    try {
      const response = await fetch(`${gateway}/_mirror/health`);
      await response.arrayBuffer();
      if (response.ok) {
        return gateway;
      }
    } catch (error) {
      if (!isUnreachable(error)) {
        throw error;
      }
      unreachableUntil.set(gateway, Date.now() + rememberedMs);
      lastUnreachable.set(gateway, Date.now());
    }
  }
  return order[0];
};

import { traceHeadersFor } from '@libs/telemetry';
import { EpisodeServices } from '@libs/workflow-contracts';

import { fetchOnGateways } from './gateway-pool';

/** The gateways an episode's calls may go to: its own, or every gateway of a scaled-out deployment. */
const gatewaysOf = (services: Pick<EpisodeServices, 'gatewayUrl' | 'gateways'>): string[] =>
  services.gateways && services.gateways.length > 0 ? services.gateways : [services.gatewayUrl];

/** A call's method and JSON body; a client may send its own `Idempotency-Key`, as any HTTP client can. */
export interface CallInit {
  method?: string;
  body?: unknown;
  idempotencyKey?: string;
}

/** A failed call to a twin: personas act through the twins like anyone, and a refusal there is an activity failure. */
export class TwinCallError extends Error {
  /** The twin's HTTP status when it answered with one; absent when the call was refused before sending. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * A path that would leave the service once `fetch` normalises it (`..`, `.`, their percent-encodings, encoded
 * slashes, backslashes): refused before sending, so a path an agent passes can reach only its own service.
 */
const leavesService = (path: string): boolean =>
  path
    .split('?')[0]
    .split('/')
    .some((segment) => {
      if (segment.includes('\\') || /%(2f|5c)/i.test(segment)) {
        return true;
      }
      try {
        const decoded = decodeURIComponent(segment);
        return decoded === '.' || decoded === '..';
      } catch {
        return true;
      }
    });

/**
 * How persona activities reach an episode's twins: over the gateway's HTTP, with the token of the person they act
 * as, exactly like an agent does. The gateway is the one place an episode's state changes.
 */
export class TwinClient {
  private writes = 0;

  /**
   * With `actionKey`, every write carries an `Idempotency-Key` of the action and its place in it: an activity retried
   * after a crash repeats its writes with the same keys, and the twins answer them without acting twice.
   */
  constructor(
    private readonly services: EpisodeServices,
    private readonly episodeId: string,
    private readonly actionKey?: string,
  ) {}

  private base(service: string): string {
    return `${this.services.gatewayUrl}/e/${this.episodeId}/${service}`;
  }

  private path(service: string): string {
    return `/e/${this.episodeId}/${service}`;
  }

  /** The stack's service that is this pack; a stack without it has no such product to call. */
  private pack(kind: 'email' | 'slack' | 'erp'): string {
    const service = this.services[kind];
    if (service === undefined) {
      throw new TwinCallError(`the stack has no ${kind} pack`);
    }
    return service;
  }

  /** Each pack's base URL as its product's clients expect it (what `mail`, `slack` and `erp` prefix), when present. */
  baseUrls(): { mail?: string; slack?: string; erp?: string } {
    const { email, slack, erp } = this.services;
    return {
      ...(email ? { mail: `${this.base(email)}/v1.0` } : {}),
      ...(slack ? { slack: `${this.base(slack)}/api` } : {}),
      ...(erp ? { erp: `${this.base(erp)}/api/v1` } : {}),
    };
  }

  async call<T>(service: string, path: string, token: string, init: CallInit = {}): Promise<T> {
    const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
    if (leavesService(path)) {
      throw new TwinCallError(
        `${method} ${service}${path}: a twin path may not contain dot segments or encoded slashes`,
      );
    }
    const key =
      init.idempotencyKey ?? (this.actionKey && method !== 'GET' ? `${this.actionKey}#${this.writes++}` : undefined);
    const response = await fetchOnGateways(
      gatewaysOf(this.services),
      this.episodeId,
      `${this.path(service)}${path}`,
      {
        method,
        headers: {
          // The episode's trace travels with the call, so the gateway's span joins it (a persona's activity, a tool).
          ...traceHeadersFor(this.episodeId),
          authorization: `Bearer ${token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(key ? { 'idempotency-key': key } : {}),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      },
      // A write the twins may have done already is sent again only under its idempotency key.
      method === 'GET' || key !== undefined,
    );
    const text = await response.text();
    if (!response.ok) {
      throw new TwinCallError(
        `${init.method ?? 'GET'} ${service}${path}: ${response.status} ${text.slice(0, 300)}`,
        response.status,
      );
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  mail<T>(token: string, path: string, init?: CallInit): Promise<T> {
    return this.call<T>(this.pack('email'), `/v1.0${path}`, token, init);
  }

  slack<T extends { ok: boolean; error?: string }>(
    token: string,
    method: string,
    args: Record<string, unknown>,
  ): Promise<T> {
    return this.call<T>(this.pack('slack'), `/api/${method}`, token, { body: args }).then((answer) => {
      if (!answer.ok) {
        throw new TwinCallError(`slack ${method}: ${answer.error ?? 'not ok'}`);
      }
      return answer;
    });
  }

  erp<T>(token: string, path: string, init?: CallInit): Promise<T> {
    return this.call<T>(this.pack('erp'), `/api/v1${path}`, token, init);
  }
}

/**
 * The operator's hands on one episode (`/_mirror/episodes/{id}…` with the operator key): the worker's, never an
 * agent's. Tokens it fetches are kept per process: an episode's tokens never change, and none travel in workflow
 * inputs or histories.
 */
export class OperatorClient {
  private static readonly tokens = new Map<string, string>();

  private readonly gateways: string[];

  /** `gateway`: the gateway's URL, or an episode's services (every gateway of a scaled-out deployment). */
  constructor(
    gateway: string | Pick<EpisodeServices, 'gatewayUrl' | 'gateways'>,
    private readonly episodeId: string,
    private readonly operatorKey: string,
  ) {
    this.gateways = typeof gateway === 'string' ? [gateway] : gatewaysOf(gateway);
  }

  async admin<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
    const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
    const response = await fetchOnGateways(
      this.gateways,
      this.episodeId,
      `/_mirror/episodes/${encodeURIComponent(this.episodeId)}${path}`,
      {
        method,
        headers: {
          ...traceHeadersFor(this.episodeId),
          authorization: `Bearer ${this.operatorKey}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      },
      // An operator's write (a clock move) that may have been done is left to the activity's own retry.
      method === 'GET',
    );
    return { status: response.status, body: JSON.parse(await response.text()) as T };
  }

  /** Gives someone outside the company an account on a service (a mailbox), so they can be written to and write. */
  async enrol(service: string, person: { address: string; name: string }): Promise<void> {
    const { status, body } = await this.admin<{ message?: string }>('/people', { body: { service, ...person } });
    if (status !== 200) {
      throw new TwinCallError(`could not enrol ${person.address} on ${service}: ${status} ${body.message ?? ''}`);
    }
  }

  /** The token of `principal` (employee id, supplier contact id or mail address) for a service of the episode. */
  async token(service: string, principal: string): Promise<string> {
    const key = JSON.stringify([this.episodeId, service, principal]);
    const known = OperatorClient.tokens.get(key);
    if (known) {
      return known;
    }
    const { status, body } = await this.admin<{ token?: string; message?: string }>('/credentials', {
      body: { service, principal },
    });
    if (status !== 200 || !body.token) {
      throw new TwinCallError(`no ${service} token for ${principal}: ${status} ${body.message ?? ''}`);
    }
    if (OperatorClient.tokens.size >= 10_000) {
      OperatorClient.tokens.clear();
    }
    OperatorClient.tokens.set(key, body.token);
    return body.token;
  }
}

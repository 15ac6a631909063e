import type { Redactor } from '@libs/redaction';

import {
  CallObserver,
  EpisodeDescriptor,
  EpisodeEvent,
  EpisodeStore,
  EventSequenceConflictError,
  FaultSettings,
  LoggedEvent,
  RecordedResponse,
} from './episode-events';
import { EpisodeCredentials } from './episode-credentials';
import { EpisodeState } from './episode-state';
import { episodeRedactor, redactEvent, writeRedactor } from './event-redaction';
import { FaultInjector } from './fault-injector';
import { ReadMemo } from './read-memo';
import { RouteMatch, ServiceTwin } from './service-twin';
import { StackTwin } from './stack-twin';
import { jsonResponse, TwinRequest, TwinResponse } from './twin-http';

/** What of a response is kept for an idempotent retry: plain data, as it would be stored. */
const recordable = (response: TwinResponse): RecordedResponse => ({
  status: response.status,
  headers: response.headers,
  ...(response.body !== undefined ? { body: response.body } : {}),
  ...(response.text !== undefined ? { text: response.text } : {}),
});

/** Reads are never logged, refused or not: only writes are attempts. */
const isWriteOperation = (match: RouteMatch): boolean => !['get', 'head'].includes(match.plan.operation.method);

/**
 * A write refused for the caller's rights or the record's state (not a malformed call), logged with the caller as an
 * attempt: its status and reason, by the pack's reading of its own answer (Slack's `ok: false`), else the HTTP status.
 */
const refusalOf = (
  service: ServiceTwin,
  response: TwinResponse,
  match: RouteMatch,
): { status: number; reason: string } | undefined =>
  !isWriteOperation(match)
    ? undefined
    : (service.packRefusal(response) ??
      ([403, 409, 422, 423].includes(response.status)
        ? { status: response.status, reason: refusalReason(response) }
        : undefined));

/** A refused credential a call presented (none presented is no attempt), with the principal it claimed. */
const credentialRefusal = (
  service: ServiceTwin,
  response: TwinResponse,
  credential: { claimed?: string } | undefined,
): { status: number; reason: string; claimed?: string } | undefined => {
  if (!service.refusesCredential(response)) {
    return undefined;
  }
  return credential
    ? {
        status: 401,
        reason: service.packRefusal(response)?.reason ?? refusalReason(response),
        ...(credential.claimed !== undefined ? { claimed: credential.claimed.slice(0, 200) } : {}),
      }
    : undefined;
};

/** What the refusal said, in the product's own words (ERP and Graph `error.message`, Slack `error`). */
const refusalReason = (response: TwinResponse): string => {
  const body = response.body as { error?: unknown; message?: unknown } | undefined;
  const error = body?.error;
  const text =
    typeof error === 'object' && error !== null && 'message' in error ? error.message : (body?.message ?? error);
  return typeof text === 'string' ? text.slice(0, 300) : `HTTP ${response.status}`;
};

/** The service name refused operator attempts are logged under: the gateway's `/_mirror/` routes. */
export const operatorSurface = '_mirror';

/** A clock move the episode refuses: backwards, or to something that is not a time. */
export class ClockError extends Error {}

/** An operator change (record patch, faults, clock) to an episode that has ended: its graded history is final. */
export class EpisodeClosedError extends Error {
  constructor(readonly episodeId: string) {
    super(`the episode ${episodeId} has ended: it changes no more`);
  }
}

/**
 * The simulated clock starts where the world's data ends and moves one second per recorded event: every new
 * episode's start, for what is measured from it (deadlines in business days).
 */
export const episodeClockStart = Date.parse('2026-06-01T09:00:00Z');
const clockStart = episodeClockStart;

/**
 * One agent run against a stack twin: its state overlay, its event log, its faults. Reads are answered straight
 * from the state; writes are serialised per episode and answered only once their events are durable, so a crash
 * never loses a change the agent was told about.
 */
export class Episode {
  private writes: Promise<unknown> = Promise.resolve();
  private readonly faults: FaultInjector;
  /** Made on the first read, so idle episodes cost nothing. */
  private reads?: ReadMemo;
  /** What its twins sign and check tokens with, from the episode's own secret. */
  readonly credentials: EpisodeCredentials;
  private redactorOfEpisode?: Redactor;

  constructor(
    readonly descriptor: EpisodeDescriptor,
    readonly twin: StackTwin,
    readonly state: EpisodeState,
    private readonly store: EpisodeStore,
    /** Told of every call that leaves no event (reads above all), when someone records them. */
    private readonly observer?: CallObserver,
  ) {
    this.faults = new FaultInjector(descriptor.faults, descriptor.seed);
    this.credentials = new EpisodeCredentials(descriptor.secret);
  }

  get id(): string {
    return this.descriptor.id;
  }

  /**
   * What the episode's writes are redacted by before they are stored and applied (so a rebuilt episode holds the same):
   * secrets and personal data that are not the world's own. Its transcript and trajectory are redacted by it too.
   */
  get redactor(): Redactor {
    this.redactorOfEpisode ??= episodeRedactor(this.twin, this.state);
    return this.redactorOfEpisode;
  }

  /** Writes queued or running: an episode with none can be dropped from memory and rebuilt from its log. */
  private inFlight = 0;

  get idle(): boolean {
    return this.inFlight === 0;
  }

  /**
   * Runs one write of the episode's chain, deciding it again on the log as it now is when another copy of the episode
   * (another process's, after a failover) wrote first: the store refuses events whose numbers are taken, this copy
   * reads what it missed, and the write is decided afresh on it. So two copies never fork the log nor lose a write;
   * a copy that keeps losing the race (more than a few times in a row) gives the conflict to its caller.
   */
  private async committed<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof EventSequenceConflictError) || tries >= 5) {
          throw error;
        }
        await this.readMissed();
      }
    }
  }

  /** Applies the events the log has beyond this copy's state: what another copy of the episode wrote. */
  private async readMissed(): Promise<void> {
    for (const logged of await this.store.events(this.descriptor.tenantId, this.id, { after: this.state.seq })) {
      this.state.apply(logged);
    }
  }

  /**
   * Brings this copy up to its log, in turn with its writes (none is decided while it reads): for a copy that may be
   * behind, because another process served the episode for a while. Reads nothing new when nobody else wrote.
   */
  catchUp(): Promise<void> {
    return this.inTurn(() => this.readMissed());
  }

  /**
   * Runs a write at the end of the episode's chain (the next one starts after it settles, whatever its outcome),
   * decided again on the log if another copy wrote first (`committed`).
   */
  private inTurn<T>(write: () => Promise<T>): Promise<T> {
    const result = this.writes.then(() => this.committed(write));
    this.inFlight++;
    this.writes = result
      .catch(() => undefined)
      .finally(() => {
        this.inFlight--;
      });
    return result;
  }

  /**
   * The bearer token of `principal` for a service of this episode, in the product's style; undefined when the service
   * issues none (a pack without tokens). A spec twin's token carries every scope its spec declares unless `scopes` names
   * fewer. Only the operator and the runner ask.
   */
  tokenFor(serviceName: string, principal: string, scopes?: readonly string[]): string | undefined {
    return this.twin.services.get(serviceName)?.token(principal, this.credentials, scopes);
  }

  /** The company's agent's own token for a service, when the service issues tokens. */
  agentTokenFor(serviceName: string): string | undefined {
    return this.twin.services.get(serviceName)?.agentToken(this.credentials);
  }

  /** Who the company's agent is to a service (what its token names), when the service issues tokens. */
  agentPrincipalFor(serviceName: string): string | undefined {
    return this.twin.services.get(serviceName)?.agentPrincipal();
  }

  configureFaults(faults: FaultSettings | undefined): void {
    this.descriptor.faults = faults;
    this.faults.configure(faults);
  }

  private clock = { seq: -1, base: -1, iso: '' };

  /** The business clock at a sequence number (now, by default): what timestamps and answers read. */
  now(seq = this.state.seq): string {
    // Every request asks; the answer changes only when an event is recorded or the clock jumps.
    const base = this.state.timeAt(0, clockStart);
    if (this.clock.seq !== seq || this.clock.base !== base) {
      this.clock = { seq, base, iso: new Date(this.state.timeAt(seq, clockStart)).toISOString() };
    }
    return this.clock.iso;
  }

  /**
   * Moves the business clock forward to `at` (never back), as an event in the log so a rebuilt episode keeps the
   * same times. Scenarios use it for "two business days later". A move with the `key` of a recent move is that move
   * again (its answer was lost, or the workflow task that made it is replayed): it gets the time moved to then, and
   * nothing is logged.
   */
  advanceClock(at: string, key?: string): Promise<string> {
    const target = Date.parse(at);
    return this.inTurn(async () => {
      const current = Date.parse(this.now());
      if (this.state.closed) {
        throw new EpisodeClosedError(this.id);
      }
      const moved = key === undefined ? undefined : this.state.keyedClockMoves.get(key);
      if (moved !== undefined) {
        return moved;
      }
      if (Number.isNaN(target) || target < current) {
        throw new ClockError(`the clock is at ${this.now()}; it cannot move to ${at}`);
      }
      const logged: LoggedEvent = {
        seq: this.state.seq + 1,
        at: new Date(target).toISOString(),
        operationId: '_mirror.clock',
        event: { type: 'clock.set', at: new Date(target).toISOString(), ...(key !== undefined ? { key } : {}) },
      };
      await this.store.append(this.descriptor.tenantId, this.id, [logged]);
      this.state.apply(logged);
      return this.now();
    });
  }

  /**
   * Ends the episode: later writes to its twins are refused (reads still answer, for review). Idempotent. The calls
   * observed so far are written out first, so a store that commits to the episode's evidence at its end finds them.
   */
  async close(): Promise<void> {
    await this.observer?.flush?.();
    return this.appendWhileOpen('_mirror.close', { type: 'episode.closed' });
  }

  /** One event of the episode's own, in the write chain, unless the episode has ended (then nothing is logged). */
  private appendWhileOpen(operationId: string, event: EpisodeEvent): Promise<void> {
    return this.inTurn(async () => {
      if (this.state.closed) {
        return;
      }
      const logged: LoggedEvent = { seq: this.state.seq + 1, at: this.now(this.state.seq + 1), operationId, event };
      await this.store.append(this.descriptor.tenantId, this.id, [logged]);
      this.state.apply(logged);
    });
  }

  /**
   * An attempt on the episode's operator surface without the operator key (its routes, or a twin path that tries to
   * climb out to them), put on the episode's record: only someone given the episode's URLs can make it, so it is
   * evidence like any refused write. Nothing is logged once the episode has ended.
   */
  recordOperatorAttempt(operationId: string, status: number, reason: string): Promise<void> {
    return this.appendWhileOpen(operationId, {
      type: 'operation.refused',
      service: operatorSurface,
      operationId,
      status,
      reason,
    });
  }

  /**
   * Gives someone outside the company an account on a service whose pack enrols people (a scenario's outside party's
   * mailbox), logged as created records so the episode rebuilds the same; what is there already is left as it is.
   */
  enrol(
    serviceName: string,
    person: { address: string; name: string },
  ): Promise<'enrolled' | 'not_supported' | 'closed'> {
    const pack = this.twin.services.get(serviceName)?.pack;
    if (!pack?.enrol) {
      return Promise.resolve('not_supported');
    }
    const rows = Object.entries(pack.enrol(person, this.descriptor.seed)).flatMap(([name, tableRows]) =>
      tableRows.map((row) => ({ table: `${serviceName}/${name}`, row })),
    );
    return this.inTurn(async () => {
      if (this.state.closed) {
        return 'closed' as const;
      }
      const missing = rows.filter(({ table, row }) => !this.state.get(table, row.id));
      const logged: LoggedEvent[] = missing.map(({ table, row }, index) => ({
        seq: this.state.seq + 1 + index,
        at: this.now(this.state.seq + 1 + index),
        operationId: '_mirror.setup',
        event: {
          type: 'record.created',
          table,
          id: row.id,
          ...(row.parentId !== undefined ? { parentId: row.parentId } : {}),
          record: row.record,
        },
      }));
      if (logged.length > 0) {
        await this.store.append(this.descriptor.tenantId, this.id, logged);
        logged.forEach((entry) => this.state.apply(entry));
      }
      return 'enrolled' as const;
    });
  }

  /**
   * A record a scenario's setup declares (a named folder, a person's account), made in the episode before the agent
   * acts and logged as created by the setup, so the episode rebuilds the same; one already there is patched with the
   * declared fields instead, so a retried setup changes nothing.
   */
  seedRecord(
    table: string,
    id: string,
    fields: Record<string, unknown>,
  ): Promise<'created' | 'patched' | 'not_found' | 'closed'> {
    const service = this.twin.services.get(table.slice(0, table.indexOf('/')));
    if (this.state.get(table, id)) {
      return this.patchRecord(table, id, fields);
    }
    const record = service?.seedRecord(table, id, fields);
    if (!record) {
      return Promise.resolve('not_found');
    }
    return this.inTurn(async () => {
      if (this.state.closed) {
        return 'closed' as const;
      }
      if (this.state.get(table, id)) {
        return 'patched' as const;
      }
      const logged: LoggedEvent = {
        seq: this.state.seq + 1,
        at: this.now(this.state.seq + 1),
        operationId: '_mirror.setup',
        event: { type: 'record.created', table, id, record },
      };
      await this.store.append(this.descriptor.tenantId, this.id, [logged]);
      this.state.apply(logged);
      return 'created' as const;
    });
  }

  /**
   * The simulator changing the world around the agent (a scenario's setup: a budget frozen): fields set on an existing
   * record, logged like any change so the episode rebuilds the same.
   */
  patchRecord(table: string, id: string, fields: Record<string, unknown>): Promise<'patched' | 'not_found' | 'closed'> {
    return this.inTurn(async () => {
      const current = this.state.get(table, id);
      if (this.state.closed) {
        return 'closed';
      }
      if (!current) {
        return 'not_found';
      }
      if (Object.entries(fields).every(([name, value]) => JSON.stringify(current[name]) === JSON.stringify(value))) {
        // Already so: a retried setup changes nothing and logs nothing.
        return 'patched';
      }
      const logged: LoggedEvent = {
        seq: this.state.seq + 1,
        at: this.now(this.state.seq + 1),
        operationId: '_mirror.setup',
        event: { type: 'record.updated', table, id, record: { ...current, ...fields } },
      };
      await this.store.append(this.descriptor.tenantId, this.id, [logged]);
      this.state.apply(logged);
      return 'patched';
    });
  }

  /**
   * Tells the observer of a call that left no event. The caller is resolved only here, so without an observer a read
   * costs what it did; `match` is routed again for a remembered answer (the memo keeps answers, not routes).
   */
  private noteCall(
    service: ServiceTwin | undefined,
    serviceName: string,
    request: TwinRequest,
    url: string,
    response: TwinResponse,
    known?: { match?: RouteMatch; actor?: string },
  ): void {
    if (!this.observer) {
      return;
    }
    let match = known?.match;
    if (!match && service) {
      const routed = service.route(request.method, request.path);
      match = 'plan' in routed ? routed : undefined;
    }
    const now = this.now();
    const actor =
      known && 'actor' in known
        ? known.actor
        : match && service
          ? service.principal(match, request, this.state, now, url, this.credentials)
          : undefined;
    const query = request.search ?? request.query.toString();
    const path = query ? `${request.path}?${query.replace(/^\?/, '')}` : request.path;
    this.observer.observe({
      tenantId: this.descriptor.tenantId,
      episodeId: this.id,
      afterSeq: this.state.seq,
      at: now,
      service: serviceName,
      method: request.method.toUpperCase(),
      path: path.slice(0, 500),
      ...(match ? { operationId: match.plan.operation.id } : {}),
      status: response.status,
      ...(actor !== undefined ? { actor } : {}),
    });
  }

  async handle(serviceName: string, request: TwinRequest, url: string): Promise<TwinResponse> {
    return this.dispatch(serviceName, request, url);
  }

  /**
   * Like `handle`, but reads are answered synchronously: the gateway's hot path skips a promise per request. Writes
   * still return a promise, settled once their events are durable.
   */
  dispatch(serviceName: string, request: TwinRequest, url: string): TwinResponse | Promise<TwinResponse> {
    const service = this.twin.services.get(serviceName);
    if (!service) {
      const unknown = jsonResponse(404, {
        error: 'not_found',
        message: `the stack has no service "${serviceName}"; it has ${[...this.twin.services.keys()].join(', ')}`,
      });
      this.noteCall(undefined, serviceName, request, url, unknown);
      return unknown;
    }
    const method = request.method.toUpperCase();
    if ((method === 'GET' || method === 'HEAD') && !this.faults.active) {
      // Faults are seeded per request, so only fault-free reads repeat.
      const key = ReadMemo.key(serviceName, request, url, service.declaredHeaders);
      this.reads ??= new ReadMemo();
      const seq = this.state.seq;
      const known = this.reads.get(key, seq);
      if (known) {
        this.noteCall(service, serviceName, request, url, known);
        return known;
      }
      const match = service.route(request.method, request.path);
      if (!('plan' in match)) {
        this.reads.set(key, seq, match);
        this.noteCall(service, serviceName, request, url, match);
        return match;
      }
      const outcome = service.execute(match, request, this.state, this.now(), url, this.credentials);
      if (outcome.events.length === 0 && !service.refusesCredential(outcome.response)) {
        this.reads.set(key, seq, outcome.response);
        this.noteCall(service, serviceName, request, url, outcome.response, { match });
        return outcome.response;
      }
      // An RPC-style API (Slack) may change state on a GET: then it is a write like any other. A refused credential
      // goes the same way, to be logged as an attempt.
      return this.write(service, match, request, url, 0);
    }
    const match = service.route(request.method, request.path);
    if (!('plan' in match)) {
      this.noteCall(service, serviceName, request, url, match);
      return match;
    }
    const decision = this.faults.active ? this.faults.decide(serviceName, match.plan.operation.id) : undefined;
    if (decision && decision.kind !== 'none') {
      const faulted = this.faultAnswer(service, match, decision);
      this.noteCall(service, serviceName, request, url, faulted, { match });
      return faulted;
    }
    const delayMs = decision?.delayMs ?? 0;
    if (method === 'GET' || method === 'HEAD') {
      const outcome = service.execute(match, request, this.state, this.now(), url, this.credentials);
      if (outcome.events.length === 0 && !service.refusesCredential(outcome.response)) {
        this.noteCall(service, serviceName, request, url, outcome.response, { match });
        return delayMs ? { ...outcome.response, delayMs } : outcome.response;
      }
    }
    return this.write(service, match, request, url, delayMs);
  }

  /** What an injected fault answers instead of the twin. */
  private faultAnswer(
    service: ServiceTwin,
    match: RouteMatch,
    decision: Exclude<ReturnType<FaultInjector['decide']>, { kind: 'none' }>,
  ): TwinResponse {
    switch (decision.kind) {
      case 'rate-limited':
        return {
          ...service.errorResponse(429, 'rate_limited', 'rate limit exceeded', match),
          headers: { 'content-type': 'application/json', 'retry-after': String(decision.retryAfterSeconds) },
        };
      case 'timeout':
        return {
          ...service.errorResponse(504, 'timeout', 'the upstream did not answer in time', match),
          delayMs: decision.delayMs,
        };
      case 'error':
        return {
          ...service.errorResponse(503, 'service_unavailable', 'injected fault: service unavailable', match),
          delayMs: decision.delayMs,
        };
    }
  }

  /** Runs a call in the episode's write chain and answers once its events are durable. */
  private write(
    service: ServiceTwin,
    match: RouteMatch,
    request: TwinRequest,
    url: string,
    delayMs: number,
  ): Promise<TwinResponse> {
    const key = request.headers['idempotency-key'];
    const serviceName = service.service.name;
    const result = this.inTurn(async () => {
      if (this.state.closed) {
        const closed = service.errorResponse(
          409,
          'episode_closed',
          'the episode has ended: its twins are read-only',
          match,
        );
        this.noteCall(service, serviceName, request, url, closed, { match });
        return closed;
      }
      const now = this.now(this.state.seq + 1);
      const actor = service.principal(match, request, this.state, now, url, this.credentials);
      // A credential presented and not accepted gets its 401 (and is logged) before any idempotent answer.
      const presented =
        actor === undefined
          ? service.presentedCredential(match, request, this.state, now, url, this.credentials)
          : undefined;
      // A key answers again only the caller and request that used it (answers logged before scopes match any).
      const scope = `${actor ?? ''} ${request.method} ${service.service.name}${request.path}`;
      const known = key && !presented ? this.state.answerFor(key) : undefined;
      const outcome =
        known && (known.scope ?? scope) !== scope
          ? {
              response: service.errorResponse(
                // A status the operation declares for a refused request (payments APIs answer 400), 422 otherwise.
                [422, 409, 400].find((status) =>
                  match.plan.operation.responses.some((r) => r.status === String(status)),
                ) ?? 422,
                'idempotency_key_reused',
                'this Idempotency-Key was used by another caller or for another request',
                match,
              ),
              events: [],
            }
          : undefined;
      if (known && !outcome) {
        // A replay answers only a request its operation accepts: the key names a request, not any call to its path.
        const response = service.refusal(match, request) ?? known.response;
        this.noteCall(service, serviceName, request, url, response, { match, actor });
        return response;
      }
      const answer = outcome ?? service.execute(match, request, this.state, now, url, this.credentials);
      // A write that changed nothing is logged only as a refusal of a known caller, and any call whose credential was
      // refused (a forged or foreign token) as an attempt with the principal it claimed: both are evidence.
      const refused =
        answer.events.length > 0
          ? undefined
          : actor !== undefined
            ? refusalOf(service, answer.response, match)
            : credentialRefusal(service, answer.response, presented);
      if (answer.events.length === 0 && !refused) {
        this.noteCall(service, serviceName, request, url, answer.response, { match, actor });
        return answer.response;
      }
      const events: EpisodeEvent[] = refused
        ? [
            {
              type: 'operation.refused',
              service: service.service.name,
              operationId: match.plan.operation.id,
              ...refused,
            },
          ]
        : key
          ? [...answer.events, { type: 'idempotency.recorded', key, response: recordable(answer.response), scope }]
          : answer.events;
      const redactor = writeRedactor(this.redactor, 'made' in answer ? answer.made : undefined);
      const logged: LoggedEvent[] = events.map((event, index) => ({
        seq: this.state.seq + index + 1,
        at: this.now(this.state.seq + index + 1),
        operationId: match.plan.operation.id,
        ...(actor !== undefined ? { actor } : {}),
        event: redactEvent(redactor, event),
      }));
      try {
        await this.store.append(this.descriptor.tenantId, this.id, logged);
      } catch (error) {
        if (error instanceof EventSequenceConflictError) {
          throw error;
        }
        // The store's own words (a database's host, a constraint's name) are not the caller's business.
        return jsonResponse(503, {
          error: 'unavailable',
          message: 'the change could not be recorded; nothing was changed, and the same request may be sent again',
        });
      }
      logged.forEach((entry) => this.state.apply(entry));
      return answer.response;
    });
    return delayMs ? result.then((response) => ({ ...response, delayMs })) : result;
  }
}

import FindMyWay from 'find-my-way';

import {
  CredentialPlace,
  credentialPlaces,
  DocumentValidators,
  resourceShapes,
  ResourceShape,
} from '@libs/openapi-schemas';
import type { ServiceModel } from '@libs/stack-ingestion';
import { Company, hashSeed } from '@libs/synthetic-data';

import {
  changeRecord,
  createRecord,
  CrudContext,
  deleteRecord,
  getRecord,
  listRecords,
  Outcome,
} from './crud-behaviour';
import { listContainer } from './container-listing-answers';
import { ServiceBehaviours } from './behaviours/service-behaviours';
import { EpisodeCredentials } from './episode-credentials';
import type { EpisodeEvent } from './episode-events';
import { EpisodeState } from './episode-state';
import { ListEnvelope, planListEnvelope } from './list-envelope';
import { OperationPlan, planOperations } from './operation-plan';
import { PackBehaviour, PackCall, TwinPack } from './packs/twin-pack';
import { InvalidRequest, validateRequest, ValidRequest } from './request-validation';
import { ResponseFactory } from './response-factory';
import { SpecCredentials } from './spec-credentials';
import { TwinRequest, TwinResponse } from './twin-http';
import { malformedEscape } from './percent-encoding';

export interface RouteMatch {
  plan: OperationPlan;
  params: Record<string, string>;
  /**
   * Operations the spec keys on the same method and path (Box's `/shared_items#folders`); the request picks the
   * first whose parameters and body it satisfies.
   */
  variants?: OperationPlan[];
}

/** The path part of the service's first server URL (`https://erp.example/api/v1` → `/api/v1`). */
export const basePathOf = (service: ServiceModel): string => {
  const server = service.servers[0];
  if (!server) {
    return '';
  }
  try {
    const url = new URL(server.replace(/\{[^}]+\}/g, 'x'), 'http://placeholder');
    return url.pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
};

/** How many parameters a find-my-way route has (`::` is an escaped colon, not a parameter). */
const routeParameters = (route: string): number => (route.match(/(?<!:):p\d+/g) ?? []).length;

/**
 * OpenAPI templates become find-my-way routes. Parameter names are replaced by positional ones because find-my-way
 * reads `-` and `.` inside a name as separators; static colons are escaped.
 */
const toRoute = (path: string): { route: string; names: string[] } => {
  const names: string[] = [];
  const base = path.split('#')[0];
  const route = base
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const match = /^\{([^}]+)\}$/.exec(part);
      if (match) {
        names.push(match[1]);
        return `:p${names.length - 1}`;
      }
      return part.replace(/:/g, '::');
    })
    .join('');
  return { route, names };
};

/** Who calls a spec twin in a world without people: the agent (or the user of `mirror serve`), as one principal. */
export const loneAgent = 'agent';

type Handler = (params: Record<string, string | undefined>) => RouteMatch;

/**
 * One service's twin: its operations compiled into plans, a radix router that finds the one operation a request is
 * for, and the behaviour that answers it from an episode's state (CRUD on inferred resources, the spec's examples or
 * synthesized bodies for the rest). Stateless itself: everything that changes lives in the EpisodeState passed in.
 */
export class ServiceTwin {
  readonly plans: OperationPlan[];
  readonly shapes: ResourceShape[];
  readonly basePath: string;
  /** Operations that could not be routed at all (a route shape find-my-way refuses). */
  readonly unroutable: string[] = [];
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, caseSensitive: true });
  /** Validators of this service's document by pointer; also what tests judge responses with. */
  readonly validators: DocumentValidators;
  private readonly responses: ResponseFactory;
  private readonly envelopes = new Map<number, ListEnvelope>();
  private readonly variants = new Map<string, OperationPlan[]>();
  /** Lower-case names of every header parameter the operations declare: what a read's answer may depend on. */
  readonly declaredHeaders: readonly string[];
  /** How a twin of the client's own spec tells who calls, as its spec declares; packs have their own ways. */
  private readonly specCredentials?: SpecCredentials;
  /** Actions on items and the bundle's overlay, for a client's own service (packs bring their own behaviour). */
  readonly behaviours?: ServiceBehaviours;

  constructor(
    readonly service: ServiceModel,
    readonly seed: number,
    /** The built-in pack this service is, whose behaviours answer before the generic ones. */
    readonly pack?: TwinPack,
    private readonly company?: Company,
  ) {
    this.shapes = resourceShapes(service);
    this.plans = planOperations(service, this.shapes);
    this.basePath = basePathOf(service);
    this.behaviours = pack ? undefined : new ServiceBehaviours(service, this.shapes, this.plans);
    this.specCredentials = pack ? undefined : new SpecCredentials(service);
    this.declaredHeaders = [
      ...new Set([
        ...this.plans.flatMap((plan) =>
          plan.parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
        ),
        // An API key in a header or cookie decides who is answered, so a read is remembered per key.
        ...(this.specCredentials?.headers ?? []),
        // So does a declared cookie parameter: it is validated and may be required.
        ...(this.plans.some((plan) => plan.parameters.some((p) => p.in === 'cookie')) ? ['cookie'] : []),
      ]),
    ];
    this.validators = DocumentValidators.of(service.document, service.dialect);
    this.responses = new ResponseFactory(service, this.validators, seed);
    for (const plan of this.plans) {
      const { route, names } = toRoute(plan.operation.path);
      const key = `${plan.operation.method} ${route}`;
      const sharing = this.variants.get(key);
      if (sharing) {
        sharing.push(plan);
        continue;
      }
      const variants = [plan];
      const handler: Handler = (raw) => ({
        plan,
        params: Object.fromEntries(names.map((name, index) => [name, raw[`p${index}`] ?? ''])),
        ...(variants.length > 1 ? { variants } : {}),
      });
      try {
        this.router.on(plan.operation.method.toUpperCase() as FindMyWay.HTTPMethod, route, handler as never, { route });
        this.variants.set(key, variants);
      } catch {
        this.unroutable.push(plan.operation.id);
      }
    }
  }

  /**
   * The path's own route template and its methods (other than `method`). Another method may match the path through a
   * wider template (`/items/search` is also `/items/{id}`), but that is another resource: the most specific template,
   * the one with the fewest parameters, is the path's own, and only its methods are allowed.
   */
  private ownRoute(path: string, method: string): { route?: string; methods: string[] } {
    const matches = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']
      .filter((m) => m !== method.toUpperCase())
      .map((m) => ({
        method: m,
        route: (this.router.find(m as FindMyWay.HTTPMethod, path)?.store as { route?: string })?.route,
      }))
      .filter((m): m is { method: string; route: string } => m.route !== undefined);
    const route = matches.map((m) => m.route).sort((a, b) => routeParameters(a) - routeParameters(b))[0];
    return { route, methods: matches.filter((m) => m.route === route).map((m) => m.method) };
  }

  /**
   * OpenAPI matches a concrete path before a templated one: `GET /batches/files`, where `/batches/files` declares only
   * POST, is a method that path does not allow (405), not a read of the batch "files" through `/batches/{id}`.
   */
  private shadowed(route: string | undefined, path: string, method: string): boolean {
    if (route === undefined || routeParameters(route) === 0) {
      return false;
    }
    const own = this.ownRoute(path, method).route;
    return own !== undefined && routeParameters(own) < routeParameters(route);
  }

  /** Finds the operation for a request, or the 404/405 that says why there is none. */
  route(method: string, path: string): RouteMatch | TwinResponse {
    const malformed = malformedEscape(path);
    if (malformed !== undefined) {
      const message = `the path has a malformed percent-encoding ("${malformed}"): every % must start %XX of UTF-8`;
      return this.pack?.errorResponse
        ? this.pack.errorResponse(400, 'invalid_path', message)
        : this.responses.error(undefined, 400, 'invalid_path', message);
    }
    // The router decodes each parameter exactly once (`100%25` is the id `100%`); nothing downstream decodes again.
    const found = this.router.find(method.toUpperCase() as FindMyWay.HTTPMethod, path);
    if (found && !this.shadowed((found.store as { route?: string } | undefined)?.route, path, method)) {
      return (found.handler as unknown as Handler)(found.params);
    }
    const allowed = this.ownRoute(path, method).methods;
    if (this.pack?.anyMethod && allowed.length > 0) {
      const other = this.router.find(allowed[0] as FindMyWay.HTTPMethod, path);
      if (other) {
        return (other.handler as unknown as Handler)(other.params);
      }
    }
    if (this.pack?.errorResponse) {
      return this.pack.errorResponse(404, allowed.length > 0 ? 'method_not_allowed' : 'unknown_method', path);
    }
    if (allowed.length > 0) {
      return {
        ...this.responses.error(
          undefined,
          405,
          'method_not_allowed',
          `${method.toUpperCase()} is not allowed on ${path}; use ${allowed.join(', ')}`,
        ),
        headers: { 'content-type': 'application/json', allow: allowed.join(', ') },
      };
    }
    return this.responses.error(
      undefined,
      404,
      'not_found',
      `no operation of ${this.service.name} matches ${method.toUpperCase()} ${path}`,
    );
  }

  /**
   * A client's own service has no domain events of its product: each record it changes is told as one
   * (`helpdesk.refunds.created`, with the table, id and record), so scenarios' parties and graders can react to the
   * client's workflow as they do to a pack's. Packs tell their own.
   */
  private told(outcome: Outcome): Outcome {
    if (this.pack) {
      return outcome;
    }
    const verbs = {
      'record.created': 'created',
      'record.replaced': 'replaced',
      'record.updated': 'updated',
      'record.deleted': 'deleted',
    } as const;
    const told = outcome.events.flatMap((event): EpisodeEvent[] => {
      if (!(event.type in verbs)) {
        return [];
      }
      const change = event as Extract<EpisodeEvent, { table: string }>;
      const table = change.table.startsWith(`${this.service.name}/`)
        ? change.table.slice(this.service.name.length + 1)
        : change.table;
      return [
        {
          type: 'domain',
          name: `${this.service.name}.${table}.${verbs[change.type]}`,
          service: this.service.name,
          data: { table, id: change.id, ...('record' in change ? { record: change.record } : {}) },
        },
      ];
    });
    return told.length === 0 ? outcome : { ...outcome, events: [...outcome.events, ...told] };
  }

  /** Answers a routed request from the episode's state; mutations come back as events for the caller to persist. */
  execute(
    match: RouteMatch,
    request: TwinRequest,
    state: EpisodeState,
    now: string,
    url: string,
    credentials: EpisodeCredentials,
  ): Outcome {
    if (this.pack && this.company) {
      const packed = this.executePack(this.pack, this.company, match, request, state, now, url, credentials);
      if (packed) {
        return packed;
      }
    }
    const admission = this.specCredentials?.admit(match.plan, request, credentials.for(this.service.name));
    if (admission && !admission.admitted) {
      // The spec's own 401/403 body, with the challenge a client's HTTP stack reads to know what to present.
      const refusal = this.responses.error(match.plan, admission.status, admission.code, admission.message);
      return {
        response: { ...refusal, headers: { ...refusal.headers, 'www-authenticate': admission.challenge } },
        events: [],
      };
    }
    const { plan, valid } = this.validated(match, request);
    if (!valid.ok) {
      return { response: this.invalidResponse(plan, valid), events: [] };
    }
    const context = (crud: OperationPlan & { shape: ResourceShape }): CrudContext => {
      const visible =
        this.pack?.visible && this.company
          ? this.pack.visible(this.packCall(this.company, match, request, state, now, url, credentials))
          : undefined;
      return {
        plan: crud,
        state,
        request: valid,
        document: this.service.document,
        validators: this.validators,
        responses: this.responses,
        listEnvelope: (p) => this.envelope(p),
        now,
        seed: this.seed,
        url,
        rawQuery: request.query,
        ...(visible ? { visible } : {}),
      };
    };
    const behaved = this.behaviours?.execute(
      plan,
      context,
      (crud) => this.crud(crud),
      () => this.generic(plan, request),
    );
    if (behaved) {
      return this.told(behaved);
    }
    if (plan.role && plan.shape) {
      return this.told(this.crud(context(plan as OperationPlan & { shape: ResourceShape })));
    }
    if (plan.containerListing) {
      const { container } = plan.containerListing;
      return listContainer({ ...context({ ...plan, shape: container }), plan, listing: plan.containerListing });
    }
    return this.generic(plan, request);
  }

  /** The request checked against its operation, or the first of the operations keyed on its path it satisfies. */
  private validated(
    match: RouteMatch,
    request: TwinRequest,
  ): { plan: OperationPlan; valid: ValidRequest | InvalidRequest } {
    let plan = match.plan;
    let valid = validateRequest(plan, request, match.params, this.validators, this.service.document);
    for (const variant of match.variants?.slice(1) ?? []) {
      if (valid.ok) {
        break;
      }
      const attempt = validateRequest(variant, request, match.params, this.validators, this.service.document);
      if (attempt.ok) {
        plan = variant;
        valid = attempt;
      }
    }
    return { plan, valid };
  }

  private invalidResponse(plan: OperationPlan, refusal: InvalidRequest): TwinResponse {
    const status = this.validationStatus(plan, refusal);
    return this.responses.error(
      plan,
      status,
      status === 415 ? 'unsupported_media_type' : status === 413 ? 'payload_too_large' : 'invalid_request',
      refusal.message,
      { problems: refusal.problems },
    );
  }

  /**
   * The refusal of a request its operation's schemas refuse, for a spec twin (packs validate in their product's
   * terms); undefined when it is valid. An idempotent replay asks first: a key answers again only a request that
   * could have been answered, never a bodiless or malformed one with the answer of the valid one that used it.
   */
  refusal(match: RouteMatch, request: TwinRequest): TwinResponse | undefined {
    if (this.pack) {
      return undefined;
    }
    const { plan, valid } = this.validated(match, request);
    return valid.ok ? undefined : this.invalidResponse(plan, valid);
  }

  /** The spec's own answer (its example, or a body synthesized from its schema) to an operation CRUD does not answer. */
  private generic(plan: OperationPlan, request: TwinRequest): Outcome {
    const response = this.responses.success(plan, requestKey(request));
    const safe = plan.operation.method === 'get' || plan.operation.method === 'head';
    return {
      response,
      events: safe
        ? []
        : [
            {
              type: 'operation.called',
              service: this.service.name,
              operationId: plan.operation.id,
              status: response.status,
            },
          ],
    };
  }

  /** The generic CRUD answer of an operation with a resource role. */
  private crud(context: CrudContext): Outcome {
    switch (context.plan.role) {
      case 'list':
        return listRecords(context);
      case 'get':
        return getRecord(context);
      case 'create':
        return createRecord(context);
      case 'replace':
        return changeRecord(context, 'record.replaced');
      case 'update':
        return changeRecord(context, 'record.updated');
      case 'delete':
        return deleteRecord(context);
      case undefined:
        throw new Error(`${context.plan.operation.id} has no resource role`);
    }
  }

  /**
   * A pack's turn: its guard (authentication) for every operation, then its behaviour if it has one. Undefined lets
   * the generic twin answer (a pack's plain reads: lists with filters and pages, gets by id).
   */
  private executePack(
    pack: TwinPack,
    company: Company,
    match: RouteMatch,
    request: TwinRequest,
    state: EpisodeState,
    now: string,
    url: string,
    credentials: EpisodeCredentials,
  ): Outcome | undefined {
    const behaviour = pack.behaviours[match.plan.operation.id] as PackBehaviour | undefined;
    if (!behaviour && !pack.guard) {
      return undefined;
    }
    let input: ValidRequest | undefined;
    if (behaviour && pack.validate) {
      // A pack validates in its product's terms or lets the spec do it; Slack answers `invalid_arguments` itself.
      const checked = validateRequest(match.plan, request, match.params, this.validators, this.service.document);
      if (!checked.ok) {
        const status = this.validationStatus(match.plan, checked);
        return { response: this.errorResponse(status, 'invalid_request', checked.message), events: [] };
      }
      input = checked;
    }
    const call = this.packCall(company, match, request, state, now, url, credentials, input);
    return pack.guard?.(call) ?? behaviour?.(call);
  }

  /** A refusal in the pack's own terms (Slack's `ok: false` for a rights error), when the pack reads them. */
  /**
   * A record a scenario's setup puts in the world (a named folder, a person's account): synthesized from the
   * resource's record schema like the world's own, with the declared fields over it and the declared id. Undefined
   * when the service has no such resource.
   */
  seedRecord(table: string, id: string, fields: Record<string, unknown>): Record<string, unknown> | undefined {
    const shape = this.shapes.find((s) => s.key === table);
    if (!shape) {
      return undefined;
    }
    const synthesized = this.responses.synthesizeSchema(shape.record, hashSeed(this.seed, table, 'setup', id));
    const record = synthesized && typeof synthesized === 'object' ? (synthesized as Record<string, unknown>) : {};
    return { ...record, ...fields, [shape.idField]: shape.idKind === 'integer' && /^\d+$/.test(id) ? Number(id) : id };
  }

  packRefusal(response: TwinResponse): { status: number; reason: string } | undefined {
    return this.pack?.refusal?.(response);
  }

  /** Who makes this call, by its credentials, when the service is a pack that can tell. */
  principal(
    match: RouteMatch,
    request: TwinRequest,
    state: EpisodeState,
    now: string,
    url: string,
    credentials: EpisodeCredentials,
  ): string | undefined {
    if (this.specCredentials) {
      return this.specCredentials.principal(match.plan, request, credentials.for(this.service.name));
    }
    return this.pack?.principal && this.company
      ? this.pack.principal(this.packCall(this.company, match, request, state, now, url, credentials))
      : undefined;
  }

  /**
   * A principal's token for this service, in the product's style; undefined when the service issues none. A spec
   * twin's token carries every scope the spec declares unless `scopes` names fewer (packs have no scopes).
   */
  token(principal: string, credentials: EpisodeCredentials, scopes?: readonly string[]): string | undefined {
    const own = credentials.for(this.service.name);
    return this.specCredentials ? SpecCredentials.token(own, principal, scopes) : this.pack?.token?.(principal, own);
  }

  /**
   * Who the agent is to this service, when it issues tokens: the company's agent as the product names people, or for
   * a spec twin of a world without people (a lone spec) the one caller there is, `agent`.
   */
  agentPrincipal(): string | undefined {
    if (this.specCredentials) {
      return this.company?.agent.id ?? loneAgent;
    }
    return this.company && this.pack?.token ? this.pack.agentPrincipal?.(this.company) : undefined;
  }

  /** The agent's own token for this service (its principal's, every scope), when it issues tokens. */
  agentToken(credentials: EpisodeCredentials): string | undefined {
    const principal = this.agentPrincipal();
    return principal === undefined ? undefined : this.token(principal, credentials);
  }

  /** Where this spec twin's operations take a credential (each operation's first alternative), once each. */
  credentialPlaces(): CredentialPlace[] {
    const credentials = this.specCredentials;
    const places = credentials
      ? this.plans.flatMap((plan) => credentialPlaces(credentials.alternatives(plan)[0] ?? []))
      : [];
    return [...new Map(places.map((place) => [JSON.stringify(place), place])).values()];
  }

  /** Whether some operation asks for a credential (the spec declares security that applies to it). */
  get takesCredentials(): boolean {
    const credentials = this.specCredentials;
    return credentials
      ? this.plans.some((plan) => credentials.alternatives(plan).some((alternative) => alternative.length > 0))
      : this.pack !== undefined;
  }

  /** The credential a call presents and whom it claims to be, genuine or not, when the service is a pack. */
  presentedCredential(
    match: RouteMatch,
    request: TwinRequest,
    state: EpisodeState,
    now: string,
    url: string,
    credentials: EpisodeCredentials,
  ): { claimed?: string } | undefined {
    if (this.specCredentials) {
      return this.specCredentials.claimed(match.plan, request);
    }
    return this.pack?.presentedCredential && this.company
      ? this.pack.presentedCredential(this.packCall(this.company, match, request, state, now, url, credentials))
      : undefined;
  }

  /** Whether an answer refuses the call's credential: a 401, or the pack's own word for one (Slack's `invalid_auth`). */
  refusesCredential(response: TwinResponse): boolean {
    return response.status === 401 || this.packRefusal(response)?.status === 401;
  }

  private packCall(
    company: Company,
    match: RouteMatch,
    request: TwinRequest,
    state: EpisodeState,
    now: string,
    url: string,
    credentials: EpisodeCredentials,
    input?: ValidRequest,
  ): PackCall {
    const service = this.service.name;
    return {
      service,
      operationId: match.plan.operation.id,
      request,
      url,
      params: match.params,
      ...(input ? { input } : {}),
      state,
      now,
      seq: state.seq + 1,
      table: (name) => `${service}/${name}`,
      company,
      credentials: credentials.for(service),
    };
  }

  /**
   * The status of a refused request, among those the operation declares. A request its schemas refuse gets 400, or
   * 422 when the operation declares 422 and not 400 (its authors answer validation failures with 422). A request that
   * cannot even be read (a body that is not JSON, a broken escape) is a syntax error, HTTP's 400, and gets 422 only
   * when the operation declares 422 and nothing that covers a 400 (no 400, `4XX` or `default`), so that the status a
   * client's code was written for still comes back.
   */
  private validationStatus(plan: OperationPlan, refusal: InvalidRequest): number {
    if (refusal.status !== 400) {
      return refusal.status;
    }
    const declared = new Set(plan.operation.responses.map((r) => r.status.toUpperCase()));
    if (declared.has('400') || !declared.has('422')) {
      return 400;
    }
    return refusal.syntax && (declared.has('4XX') || declared.has('DEFAULT')) ? 400 : 422;
  }

  private envelope(plan: OperationPlan): ListEnvelope {
    let envelope = this.envelopes.get(plan.index);
    if (!envelope) {
      envelope = plan.shape?.listSchema
        ? planListEnvelope(this.service.document, plan.shape.listSchema, plan.shape.listField)
        : { setters: [] };
      this.envelopes.set(plan.index, envelope);
    }
    return envelope;
  }

  errorResponse(status: number, code: string, message: string, match?: RouteMatch): TwinResponse {
    if (this.pack?.errorResponse) {
      return this.pack.errorResponse(status, code, message);
    }
    return this.responses.error(match?.plan, status, code, message);
  }
}

/** What makes two calls of a non-CRUD operation "the same request" for deterministic answers. */
const requestKey = (request: TwinRequest): string => {
  const query = [...request.query.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return `${request.path}?${query}#${request.body?.length ? hashSeed(request.body.toString('latin1')) : ''}`;
};

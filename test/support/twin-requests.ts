import { base, en, Faker } from '@faker-js/faker';

import { credentialPlaces, flattenSchema, operationSecurity, placeCredential, Schema } from '@libs/openapi-schemas';
import { hashSeed, ValueSynthesizer, defaultSynthesisOptions } from '@libs/synthetic-data';
import {
  Episode,
  EpisodeState,
  OperationPlan,
  scopedIds,
  scopeOf,
  ServiceTwin,
  TwinRequest,
  TwinResponse,
} from '@libs/twin-engine';

/**
 * Valid requests for any operation of a twin, the way a well-behaved client would send them: ids of records that
 * exist, required parameters filled from their schemas, bodies synthesized from the request schema.
 */
export class RequestMaker {
  private readonly faker = new Faker({ locale: [en, base] });
  private readonly synthesizer: ValueSynthesizer;

  constructor(
    private readonly twin: ServiceTwin,
    private readonly state: EpisodeState,
    seed: number,
    /** The caller's token, put where each operation's spec takes one (its first security alternative). */
    private readonly token?: string,
  ) {
    this.synthesizer = new ValueSynthesizer(twin.service.document, this.faker, {
      ...defaultSynthesisOptions,
      direction: 'request',
      optionalDepth: 1,
      isValid: (schema, value) => twin.validators.validatorForSchema(schema)(value),
    });
    this.faker.seed(seed);
  }

  request(plan: OperationPlan, attempt = 0): TwinRequest {
    this.faker.seed(hashSeed(plan.operation.id, attempt));
    const pathValues = this.pathValues(plan);
    const path = plan.operation.path
      .split('#')[0]
      .replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name] ?? 'x'));
    const query = new URLSearchParams();
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const parameter of plan.parameters) {
      if (!parameter.required || parameter.in === 'path' || parameter.in === 'cookie') {
        continue;
      }
      const value = this.scalar(parameter.schema ?? {}, parameter.name);
      if (parameter.in === 'query') {
        (Array.isArray(value) ? value : [value]).forEach((item) =>
          query.append(parameter.name, typeof item === 'object' ? JSON.stringify(item) : String(item)),
        );
      } else if (parameter.in === 'header') {
        headers[parameter.name.toLowerCase()] = String(value);
      }
    }
    let body: Buffer | undefined;
    const mediaType =
      plan.bodyMediaTypes.find((t) => /json/i.test(t)) ??
      plan.bodyMediaTypes.find((t) => /form-urlencoded/.test(t)) ??
      plan.bodyMediaTypes[0];
    if (mediaType) {
      const pointer = plan.operation.requestBody?.content[mediaType];
      const value = pointer ? this.synthesizer.value({ $ref: `#${pointer}` }) : {};
      headers['content-type'] = mediaType;
      if (/json/i.test(mediaType)) {
        body = Buffer.from(JSON.stringify(value));
      } else if (/form-urlencoded/.test(mediaType)) {
        const form = new URLSearchParams();
        for (const [key, field] of Object.entries((value ?? {}) as Record<string, unknown>)) {
          (Array.isArray(field) ? field : [field]).forEach((item) =>
            form.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item)),
          );
        }
        body = Buffer.from(form.toString());
      } else {
        body = Buffer.from('binary content');
      }
    }
    const alternatives = operationSecurity(this.twin.service.document, plan.operation.pointer);
    if (this.token !== undefined && alternatives.length > 0 && alternatives.every((a) => a.length > 0)) {
      const credential = placeCredential(credentialPlaces(alternatives[0]), this.token);
      Object.assign(headers, credential.headers);
      credential.query.forEach(([name, value]) => query.set(name, value));
    }
    return { method: plan.operation.method.toUpperCase(), path, query, headers, ...(body ? { body } : {}) };
  }

  private scalar(schema: Schema, name: string): unknown {
    return this.synthesizer.value(schema, name);
  }

  /** Path parameters that name a resource's records get the id of one that exists (and belongs to its parent). */
  private pathValues(plan: OperationPlan): Record<string, string> {
    const values: Record<string, string> = {};
    const names = [...plan.operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    let parentId: string | undefined;
    for (const name of names) {
      const prefix = plan.operation.path.slice(0, plan.operation.path.indexOf(`{${name}}`) + name.length + 2);
      const shape = this.twin.shapes.find(
        (s) =>
          s.resource.itemPath !== undefined &&
          prefix.replace(/\{[^}]+\}/g, '{}') ===
            s.resource.itemPath.replace(/\{[^}]+\}/g, '{}').replace(/\.[A-Za-z0-9]+$/, ''),
      );
      if (shape) {
        // A nested collection without a parent resource lists what is in the scope its path's values name.
        const scope = scopeOf(shape, values);
        const ids =
          scope !== undefined
            ? scopedIds(this.state, shape, this.twin.seed, scope)
            : this.state.ids(shape.key, shape.resource.parent ? parentId : undefined);
        const withChildren = ids.find((id) =>
          this.twin.shapes.some(
            (child) => child.resource.parent === shape.resource.name && this.state.ids(child.key, id).length > 0,
          ),
        );
        const id = withChildren ?? ids[0];
        const parameter = plan.parameters.find((p) => p.in === 'path' && p.name === name);
        const value = id !== undefined && /^\d+$/.test(id) && parameter?.types.includes('integer') ? Number(id) : id;
        const fits =
          id !== undefined && (!parameter?.schema || this.twin.validators.validatorForSchema(parameter.schema)(value));
        if (id !== undefined && fits) {
          values[name] = id;
          parentId = id;
          continue;
        }
      }
      const parameter = plan.parameters.find((p) => p.in === 'path' && p.name === name);
      const value = this.scalar(parameter?.schema ?? { type: 'string' }, name);
      values[name] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    return values;
  }
}

/** Whether a response is what the operation's spec allows: a declared status and, for JSON, a valid body. */
export const conformance = (twin: ServiceTwin, plan: OperationPlan, response: TwinResponse): string | undefined => {
  const status = String(response.status);
  const declared =
    plan.operation.responses.find((r) => r.status === status) ??
    plan.operation.responses.find((r) => r.status.toUpperCase() === `${status[0]}XX`) ??
    plan.operation.responses.find((r) => r.status === 'default');
  if (!declared) {
    return `status ${status} is not declared (declared: ${plan.operation.responses.map((r) => r.status).join(', ')})`;
  }
  const type = (response.headers['content-type'] ?? '').split(';')[0];
  const pointer =
    declared.content[type] ??
    Object.entries(declared.content).find(([t]) => /json/i.test(t) && /json/i.test(type))?.[1];
  if (!pointer || response.body === undefined) {
    return undefined;
  }
  const validate = twin.validators.validator(pointer);
  if (!validate(response.body)) {
    return `body does not match ${pointer}: ${JSON.stringify(validate.errors?.slice(0, 2))}`;
  }
  return undefined;
};

export const schemaOf = (document: unknown, pointer: string): Schema =>
  flattenSchema(document, { $ref: `#${pointer}` });

/** A request to one of an episode's services (its first unless named), through the episode's own request handling. */
export const requestEpisode = (
  episode: Episode,
  method: string,
  target: string,
  body?: unknown,
  headers: Record<string, string> = {},
  service = [...episode.twin.services.keys()][0],
): Promise<TwinResponse> => {
  const [pathname, query] = target.split('?');
  return episode.handle(
    service,
    {
      method,
      path: pathname,
      query: new URLSearchParams(query ?? ''),
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
    },
    `http://twin${pathname}`,
  );
};

/** A JSON call to an episode's first service, as a client sends it: the status and the body as parsed JSON. */
export const callEpisode = async (
  episode: Episode,
  method: string,
  target: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> => {
  const response = await requestEpisode(episode, method, target, body);
  return { status: response.status, body: response.text ? (JSON.parse(response.text) as unknown) : response.body };
};

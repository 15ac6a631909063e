import { DocumentValidators, flattenSchema, resolveSchema, Schema } from '@libs/openapi-schemas';
import { dereference, escapePointerSegment, getAtPointer, type ServiceModel } from '@libs/stack-ingestion';
import { defaultSynthesisOptions, englishFaker, hashSeed, ValueSynthesizer } from '@libs/synthetic-data';

import { shapeErrorBody, withoutPinnedCodes } from './error-body';
import { OperationPlan } from './operation-plan';
import { jsonResponse, TwinResponse } from './twin-http';

/** Non-CRUD answers are cached per request shape: synthesizing per request costs several times the throughput. */
const cacheLimit = 256;

/**
 * Bodies the spec describes but the twin's state does not hold: success bodies of non-CRUD operations (the spec's
 * example when one validates, else synthesized), envelope templates for CRUD responses, and error bodies in the
 * spec's own error shape. All deterministic for (world seed, operation, request).
 */
export class ResponseFactory {
  private readonly faker = englishFaker();
  private readonly synthesizer: ValueSynthesizer;
  private readonly cache = new Map<string, unknown>();

  constructor(
    private readonly service: ServiceModel,
    private readonly validators: DocumentValidators,
    private readonly seed: number,
  ) {
    this.synthesizer = new ValueSynthesizer(service.document, this.faker, {
      ...defaultSynthesisOptions,
      isValid: (schema, value) => {
        try {
          return this.validators.validatorForSchema(schema)(value);
        } catch {
          return true;
        }
      },
    });
  }

  /** A schema-valid value for the schema at `pointer`, the same every time for the same key. */
  synthesize(pointer: string, key: string): unknown {
    const cacheKey = `${pointer}\u0000${key}`;
    if (this.cache.has(cacheKey)) {
      return structuredClone(this.cache.get(cacheKey));
    }
    this.faker.seed(hashSeed(this.seed, pointer, key));
    const value = this.synthesizer.value({ $ref: `#${pointer}` });
    this.remember(cacheKey, value);
    return structuredClone(value);
  }

  /**
   * Like `synthesize`, but the shared cached value itself: for callers that only read it. `holding`: the field the
   * caller will put its records in. Where the schema offers alternatives (`oneOf`: one record under `item`, or several
   * under `items`), the value is made from an alternative that declares that field: laid into a value of another
   * alternative, the records would make the body match both (which `oneOf` forbids) or neither.
   */
  template(pointer: string, key: string, holding?: string): unknown {
    // Looked up before anything is resolved: this runs for every answer that wraps records.
    const cacheKey = holding === undefined ? `${pointer}\u0000${key}` : `${pointer}\u0000${key}\u0000${holding}`;
    if (!this.cache.has(cacheKey)) {
      const alternative =
        holding === undefined ? undefined : alternativeDeclaring(this.service.document, pointer, holding);
      this.faker.seed(hashSeed(this.seed, pointer, key));
      this.remember(cacheKey, this.synthesizer.value(alternative ?? { $ref: `#${pointer}` }));
    }
    return this.cache.get(cacheKey);
  }

  private remember(cacheKey: string, value: unknown): void {
    if (this.cache.size >= cacheLimit) {
      this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(cacheKey, value);
  }

  /** A value for a schema object (not cached): records created during an episode, each from its own seed. */
  synthesizeSchema(schema: Schema, seed: number): unknown {
    this.faker.seed(seed);
    return this.synthesizer.value(schema);
  }

  /** The operation's documented example for its success response, if it validates against the schema. */
  example(plan: OperationPlan): unknown {
    const media = this.mediaObject(plan.operation.pointer, String(plan.successStatus), plan.successMediaType);
    if (!media || !plan.successSchemaPointer) {
      return undefined;
    }
    const examples =
      media.examples && typeof media.examples === 'object'
        ? Object.values(media.examples as Record<string, unknown>)
        : [];
    const candidates = [
      media.example,
      ...examples.map((example) => resolveSchema(this.service.document, example).value),
      flattenSchema(this.service.document, { $ref: `#${plan.successSchemaPointer}` }).example,
    ];
    const validate = this.validators.validator(plan.successSchemaPointer);
    return candidates.find((candidate) => candidate !== undefined && validate(candidate));
  }

  success(plan: OperationPlan, requestKey: string): TwinResponse {
    if (!plan.successSchemaPointer) {
      return {
        status: plan.successStatus,
        headers: plan.successMediaType ? { 'content-type': plan.successMediaType } : {},
      };
    }
    const body = this.example(plan) ?? this.synthesize(plan.successSchemaPointer, `${plan.operation.id}:${requestKey}`);
    return jsonResponse(plan.successStatus, structuredClone(body), {
      'content-type': plan.successMediaType ?? 'application/json',
    });
  }

  /**
   * An error in the spec's own shape: the response declared for this status (or its range, or `default`), shaped so
   * the real problem sits where the schema keeps messages (see `shapeErrorBody`). Without a declared shape, a plain
   * `{ error, message }`.
   */
  error(
    plan: OperationPlan | undefined,
    status: number,
    code: string,
    message: string,
    extra: Record<string, unknown> = {},
  ): TwinResponse {
    // The operation's own error response first; else the service's usual error body, which is what the real API
    // would most likely send for a status the spec forgot to declare (a 404 the spec never lists is still a 404: the
    // HTTP truth about a missing record, said in the shape the service uses for its other errors).
    const own = plan ? this.declaredError(plan.operation.pointer, status) : undefined;
    const text = plan && !own ? this.declaredTextType(plan.operation.pointer, status) : undefined;
    if (text) {
      // An operation answered in a page or plain text (an OAuth consent page) says its errors the same way.
      const body =
        text === 'text/html' ? `<!doctype html><title>${status}</title><p>${escapeHtml(message)}</p>` : message;
      return { status, headers: { 'content-type': text }, body };
    }
    const declared = own ?? this.serviceError(status);
    if (!declared) {
      return jsonResponse(status, { error: code, message, ...extra });
    }
    const problems = (extra.problems as { location: string; message: string }[] | undefined) ?? [];
    const declaredSchema = { $ref: `#${declared.pointer}` };
    // Another status's shape says this one's problem in its own words, not the other's pinned problem type.
    const borrowed =
      'borrowed' in declared && declared.borrowed
        ? withoutPinnedCodes(this.service.document, declaredSchema)
        : undefined;
    const schema = borrowed ?? declaredSchema;
    const validate = borrowed
      ? this.validators.validatorForSchema(borrowed)
      : this.validators.validator(declared.pointer);
    const body = shapeErrorBody(
      this.service.document,
      schema,
      this.synthesize(declared.pointer, `error:${status}`),
      { status, code, message, problems },
      (itemSchema) => this.synthesizeSchema(itemSchema, hashSeed(this.seed, declared.pointer, 'error-item')),
      (value) => validate(value),
    );
    return jsonResponse(status, body, { 'content-type': declared.mediaType });
  }

  private declaredError(operationPointer: string, status: number): { pointer: string; mediaType: string } | undefined {
    const responses =
      (getAtPointer(this.service.document, operationPointer) as { responses?: Record<string, unknown> } | undefined)
        ?.responses ?? {};
    for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default']) {
      if (responses[key] === undefined) {
        continue;
      }
      const media = this.mediaObject(operationPointer, key, undefined);
      const pointer = media?.schemaPointer;
      if (pointer && media) {
        return { pointer, mediaType: media.mediaType };
      }
      return undefined;
    }
    return undefined;
  }

  /** The text media type the operation declares for this status when it declares no JSON there (`text/html`). */
  private declaredTextType(operationPointer: string, status: number): string | undefined {
    const responses =
      (getAtPointer(this.service.document, operationPointer) as { responses?: Record<string, unknown> } | undefined)
        ?.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'].find(
      (candidate) => responses[candidate] !== undefined,
    );
    if (key === undefined) {
      return undefined;
    }
    const responsePointer = `${operationPointer}/responses/${escapePointerSegment(key)}`;
    const { value } = dereference(this.service.document, responses[key], responsePointer);
    const types = Object.keys((value as { content?: Record<string, unknown> } | undefined)?.content ?? {});
    return types.some((type) => /json/i.test(type)) ? undefined : types.find((type) => /^text\//i.test(type));
  }

  /** The service's error shape for a status: its own, else its `default`, else another status's (`borrowed`). */
  private serviceError(status: number): { pointer: string; mediaType: string; borrowed: boolean } | undefined {
    const shape =
      this.service.errorShapes.find(
        (s) => s.status === String(status) && s.schemaPointer && /json/.test(s.contentType),
      ) ??
      this.service.errorShapes.find((s) => s.status === 'default' && s.schemaPointer && /json/.test(s.contentType));
    const fallback = shape ?? this.service.errorShapes.find((s) => s.schemaPointer && /json/.test(s.contentType));
    return fallback?.schemaPointer
      ? { pointer: fallback.schemaPointer, mediaType: fallback.contentType, borrowed: shape === undefined }
      : undefined;
  }

  /** The media type object of a response, with the pointer its schema lives at (through `$ref`ed responses). */
  private mediaObject(
    operationPointer: string,
    status: string,
    mediaType: string | undefined,
  ): (Schema & { mediaType: string; schemaPointer?: string }) | undefined {
    const responsePointer = `${operationPointer}/responses/${escapePointerSegment(status)}`;
    const { value, pointer } = dereference(
      this.service.document,
      getAtPointer(this.service.document, responsePointer),
      responsePointer,
    );
    const content = (value as { content?: Record<string, Schema> } | undefined)?.content ?? {};
    const type = mediaType ?? Object.keys(content).find((t) => /json/i.test(t));
    if (!type || !content[type]) {
      return undefined;
    }
    const schemaPointer = `${pointer}/content/${escapePointerSegment(type)}/schema`;
    return {
      ...content[type],
      mediaType: type,
      ...(content[type].schema !== undefined
        ? { schemaPointer: dereference(this.service.document, content[type].schema, schemaPointer).pointer }
        : {}),
    };
  }
}

/**
 * The schema at `pointer` narrowed to its first `oneOf`/`anyOf` alternative that declares `field` (as a property or
 * a required name), with what the alternatives share; undefined when it offers none, or none declares the field.
 */
const alternativeDeclaring = (document: unknown, pointer: string, field: string): Schema | undefined => {
  const schema = flattenSchema(document, { $ref: `#${pointer}` });
  const alternatives = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (!Array.isArray(alternatives)) {
    return undefined;
  }
  const declaring = alternatives.find((alternative) => {
    const flat = flattenSchema(document, alternative);
    const required = Array.isArray(flat.required) ? flat.required.map(String) : [];
    return Object.hasOwn(flat.properties ?? {}, field) || required.includes(field);
  });
  if (declaring === undefined) {
    return undefined;
  }
  const { oneOf: _oneOf, anyOf: _anyOf, discriminator: _discriminator, ...shared } = schema;
  return flattenSchema(document, { allOf: [shared, declaring] });
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

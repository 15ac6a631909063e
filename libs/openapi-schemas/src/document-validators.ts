import Ajv, { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import { linearRegExp } from './linear-patterns';
import {
  ConversionOptions,
  conversionFor,
  convertSchema,
  documentSchemaId,
  toJsonSchemaDocument,
} from './json-schema-conversion';

export type Dialect = 'openapi-3.0' | 'openapi-3.1' | 'swagger-2.0';

/** Formats OpenAPI adds to JSON Schema, with the checks a real server would apply. */
const openApiFormats: Record<string, (value: string | number) => boolean> = {
  int32: (value) => Number.isInteger(value) && Number(value) >= -(2 ** 31) && Number(value) < 2 ** 31,
  int64: (value) => Number.isInteger(value),
  float: (value) => typeof value === 'number',
  double: (value) => typeof value === 'number',
  byte: (value) => typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value),
  binary: () => true,
  password: () => true,
};

/**
 * ajv validators for any schema of one service document, addressed by JSON pointer, compiled on first use and
 * cached: a 659-operation spec pays only for the operations that are called.
 */
export class DocumentValidators {
  private static readonly shared = new WeakMap<object, Map<Dialect, DocumentValidators>>();

  /**
   * The validators of a document, one set per document object and dialect, shared by every world built from the same
   * model: compiling a schema costs milliseconds and a rollout builds a world per seed, each with the same schemas.
   * Held only as long as the document is (a stack model dropped from memory takes its validators with it).
   */
  static of(document: Record<string, unknown>, dialect: Dialect): DocumentValidators {
    let byDialect = DocumentValidators.shared.get(document);
    if (!byDialect) {
      byDialect = new Map();
      DocumentValidators.shared.set(document, byDialect);
    }
    let validators = byDialect.get(dialect);
    if (!validators) {
      validators = new DocumentValidators(document, dialect);
      byDialect.set(dialect, validators);
    }
    return validators;
  }

  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly bySchema = new WeakMap<object, ValidateFunction>();
  private readonly conversion: ConversionOptions;

  constructor(document: Record<string, unknown>, dialect: Dialect) {
    // unicodeRegExp off: vendor patterns such as `^[a-z\-\:]+$` are valid ECMAScript but not under the u flag.
    // multipleOfPrecision: money as `multipleOf: 0.01` must accept 86.99, which binary floating point cannot divide.
    const options = {
      strict: false,
      multipleOfPrecision: 6,
      allErrors: false,
      logger: false as const,
      validateFormats: true,
      unicodeRegExp: false,
      code: { regExp: linearRegExp },
      // A keyword of the wrong type fails the one schema that has it when compiled, not the whole document here.
      validateSchema: false,
    };
    this.ajv = dialect === 'openapi-3.1' ? new Ajv2020(options) : new Ajv(options);
    addFormats(this.ajv);
    for (const [name, validate] of Object.entries(openApiFormats)) {
      const type = ['int32', 'int64', 'float', 'double'].includes(name) ? 'number' : 'string';
      this.ajv.addFormat(name, { type, validate } as never);
    }
    this.conversion = { ...conversionFor(dialect), exampleDataDropped: true };
    this.addDocument(toJsonSchemaDocument(document, this.conversion));
  }

  /**
   * ajv reads every `$id` and `$anchor` of the document when it is added, and one it refuses (a templated host, an id
   * given twice) would refuse the whole document: those identities are dropped instead, each named in a failure, so
   * the rest of the spec still validates (references by JSON pointer do not need them).
   */
  private addDocument(converted: Record<string, unknown>): void {
    try {
      this.ajv.addSchema(converted);
      return;
    } catch (error) {
      this.ajv.removeSchema(documentSchemaId);
      for (const { pointer, keyword, value } of dropIdentities(converted)) {
        this.recordFailure(
          pointer,
          `its ${keyword} ${JSON.stringify(value)} is refused (${(error as Error).message}); the twin ignores it`,
          true,
        );
      }
    }
    try {
      this.ajv.addSchema(converted);
    } catch (error) {
      // Nothing left to blame: every schema of the document is validated leniently, and said so once.
      this.ajv.removeSchema(documentSchemaId);
      this.ajv.addSchema({ $id: documentSchemaId });
      this.recordFailure('', `the document's schemas cannot be compiled (${(error as Error).message})`);
    }
  }

  /** The validator for the schema at `pointer` (e.g. `/components/schemas/Pet`). */
  validator(pointer: string): ValidateFunction {
    let validate = this.cache.get(pointer);
    if (!validate) {
      validate = this.compile(pointer, () => ({ $ref: `${documentSchemaId}#${encodeFragment(pointer)}` }));
      this.cache.set(pointer, validate);
    }
    return validate;
  }

  /** The validator for a schema object taken from this document (its references resolve against the document). */
  validatorForSchema(schema: object): ValidateFunction {
    // A bare reference (an operation plan's parameter, made anew for every world built) is the same schema whatever
    // the object: kept by what it names, so it is compiled once per document.
    const reference = referenceOnly(schema);
    const key = reference === undefined ? undefined : `reference ${reference}`;
    let validate = key === undefined ? this.bySchema.get(schema) : this.cache.get(key);
    if (!validate) {
      const converted = convertSchema(schema, this.conversion) as object;
      validate = this.compile(undefined, () => converted);
      // ajv keeps every schema it compiled, by the object, for the life of its instance; this one is held by the
      // source schema instead (the WeakMap above), so a schema built per call is not kept for as long as the document.
      this.ajv.removeSchema(converted);
      if (key === undefined) {
        this.bySchema.set(schema, validate);
      } else {
        this.cache.set(key, validate);
      }
    }
    return validate;
  }

  /** Schemas that could not be compiled, by pointer when known, with ajv's reason: ingestion reports them. */
  readonly failures: { pointer?: string; message: string; stillValidated?: true }[] = [];

  /**
   * A schema ajv cannot compile (a `$ref` loop with nothing but references, a keyword of the wrong type) must not turn
   * every call of the operation into a 500: it validates nothing, and ingestion has already warned about it.
   */
  private compile(pointer: string | undefined, schema: () => object): ValidateFunction {
    try {
      return this.ajv.compile(schema());
    } catch (error) {
      const message =
        error instanceof RangeError ? 'its $refs loop without ever reaching a schema' : (error as Error).message;
      this.recordFailure(pointer, message);
      return lenient;
    }
  }

  private recordFailure(pointer: string | undefined, message: string, stillValidated = false): void {
    if (this.failures.length < 100) {
      this.failures.push({
        ...(pointer === undefined ? {} : { pointer }),
        message,
        ...(stillValidated ? { stillValidated } : {}),
      });
    }
  }
}

const identityKeywords = new Set(['$id', '$anchor', '$dynamicAnchor']);

/** Removes the `$id`/`$anchor`s below the document's root, in place, and says where each was. */
const dropIdentities = (document: Record<string, unknown>): { pointer: string; keyword: string; value: unknown }[] => {
  const dropped: { pointer: string; keyword: string; value: unknown }[] = [];
  const visit = (value: unknown, pointer: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${pointer}/${index}`));
      return;
    }
    if (value === null || typeof value !== 'object') {
      return;
    }
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (pointer !== '' && identityKeywords.has(key) && typeof object[key] === 'string') {
        dropped.push({ pointer: at, keyword: key, value: object[key] });
        delete object[key];
      } else {
        visit(object[key], at);
      }
    }
  };
  visit(document, '');
  return dropped;
};

/** The target of a schema that is nothing but a `$ref`. */
const referenceOnly = (schema: object): string | undefined => {
  const keys = Object.keys(schema);
  const reference = (schema as { $ref?: unknown }).$ref;
  return keys.length === 1 && typeof reference === 'string' ? reference : undefined;
};

const lenient = Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;

/** JSON pointers may hold characters a URI fragment may not (`{`, space, `%`): encode those and only those. */
const encodeFragment = (pointer: string): string =>
  pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (char) => encodeURIComponent(char));

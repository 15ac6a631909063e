import { Faker } from '@faker-js/faker';
import RandExp from 'randexp';

import {
  flattenSchema,
  linearPattern,
  patternProblem,
  resolveSchema,
  Schema,
  schemaTypes,
} from '@libs/openapi-schemas';

import { isCreatedField, isUpdatedField, numberKindOf, stringForField } from './field-heuristics';
import { describedValues, exampleValues, isCategoryField, isToken } from './spec-hints';

export type Direction = 'request' | 'response';

export interface SynthesisOptions {
  /** Responses omit writeOnly properties, requests omit readOnly ones. */
  direction: Direction;
  /** Arrays get at most this many items beyond their minimum: large enough to page, small enough to stay fast. */
  maxArrayItems: number;
  /** Below this depth optional properties are filled; deeper, only required ones, which ends recursive schemas. */
  optionalDepth: number;
  /** Timestamps fall before this date, so a world looks the same whenever it is built. */
  referenceDate: Date;
  /** Optional check of a candidate against a schema, to pick a `oneOf` branch that validates exactly once. */
  isValid?: (schema: Schema, value: unknown) => boolean;
}

export const defaultSynthesisOptions: SynthesisOptions = {
  direction: 'response',
  maxArrayItems: 3,
  optionalDepth: 3,
  referenceDate: new Date('2026-06-01T09:00:00Z'),
};

/** Past this depth a required recursive property gets the smallest value its type allows. */
const hardDepth = 12;

/**
 * Makes values that satisfy a schema (types, formats, enums, patterns, bounds, required, nullable, allOf,
 * oneOf with discriminators) and look real (an `email` is an email, a `currency` an ISO 4217 code, `updated_at`
 * follows `created_at`). Deterministic: the same faker seed gives the same value.
 */
export class ValueSynthesizer {
  constructor(
    private readonly document: unknown,
    readonly faker: Faker,
    private readonly options: SynthesisOptions = defaultSynthesisOptions,
  ) {}

  value(schema: unknown, name?: string, depth = 0): unknown {
    const resolved = withAnnotations(schema, flattenSchema(this.document, schema));
    if (resolved.const !== undefined) {
      return resolved.const;
    }
    if (Array.isArray(resolved.enum) && resolved.enum.length > 0) {
      const choices = resolved.enum.filter((v) => v !== null);
      return choices.length > 0 ? this.faker.helpers.arrayElement(choices) : null;
    }
    const branches = (resolved.oneOf ?? resolved.anyOf) as unknown[] | undefined;
    if (Array.isArray(branches) && branches.length > 0) {
      return this.fromBranches(resolved, branches, name, depth);
    }
    if (Array.isArray(resolved.items)) {
      return this.tuple(resolved, resolved.items as unknown[], name, depth);
    }
    const types = schemaTypes(resolved).filter((t) => t !== 'null');
    if (types.length === 0 && schemaTypes(resolved).includes('null')) {
      return null;
    }
    switch (types.length > 0 ? this.faker.helpers.arrayElement(types) : 'string') {
      case 'object':
        return this.object(resolved, depth);
      case 'array':
        return this.array(resolved, name, depth);
      case 'integer':
        return this.integer(resolved, name);
      case 'number':
        return this.number(resolved, name);
      case 'boolean':
        return this.faker.datatype.boolean();
      default:
        return this.string(resolved, name);
    }
  }

  private fromBranches(schema: Schema, branches: unknown[], name: string | undefined, depth: number): unknown {
    const discriminator = schema.discriminator as
      { propertyName?: string; mapping?: Record<string, string> } | undefined;
    const { oneOf: _oneOf, anyOf: _anyOf, discriminator: _d, ...shared } = schema;
    // Each branch is tried three times: a value can match two branches by chance, and oneOf needs exactly one.
    const shuffled = this.faker.helpers.shuffle(branches.map((_, index) => index));
    const order = [...shuffled, ...shuffled, ...shuffled];
    let fallback: unknown;
    for (const index of order) {
      const branch = flattenSchema(this.document, { allOf: [shared, branches[index]] });
      const candidate = this.value(branch, name, depth);
      if (discriminator?.propertyName && candidate && typeof candidate === 'object' && !Array.isArray(candidate)) {
        const mappingKey = Object.entries(discriminator.mapping ?? {}).find(([, target]) => {
          const reference = (branches[index] as { $ref?: string }).$ref;
          return reference !== undefined && (target === reference || reference.endsWith(`/${target}`));
        })?.[0];
        const referenceName = (branches[index] as { $ref?: string }).$ref?.split('/').pop();
        const tag = mappingKey ?? referenceName;
        const property = flattenSchema(
          this.document,
          (branch.properties as Record<string, unknown> | undefined)?.[discriminator.propertyName],
        );
        if (tag !== undefined && !Array.isArray(property.enum)) {
          (candidate as Record<string, unknown>)[discriminator.propertyName] = tag;
        }
      }
      fallback ??= candidate;
      if (!this.options.isValid || schema.anyOf || this.options.isValid(schema, candidate)) {
        return candidate;
      }
    }
    return fallback;
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    for (const [property, raw] of Object.entries(properties)) {
      const propertySchema = resolveSchema(this.document, raw);
      const hidden =
        this.options.direction === 'response' ? propertySchema.writeOnly === true : propertySchema.readOnly === true;
      if (hidden || (!required.has(property) && (depth >= this.options.optionalDepth || depth >= hardDepth))) {
        continue;
      }
      if (depth >= hardDepth) {
        out[property] = this.smallest(propertySchema);
        continue;
      }
      out[property] = this.value(raw, property, depth + 1);
    }
    // Specs sometimes require a property they never describe; a string keeps the record valid.
    for (const property of required) {
      if (!(property in out) && !(property in properties)) {
        out[property] = this.value({}, property, depth + 1);
      }
    }
    if (
      Object.keys(properties).length === 0 &&
      schema.additionalProperties &&
      typeof schema.additionalProperties === 'object' &&
      depth < this.options.optionalDepth
    ) {
      out[this.faker.lorem.word()] = this.value(schema.additionalProperties, undefined, depth + 1);
    }
    this.orderTimestamps(out);
    return out;
  }

  /** `updated_at` never precedes `created_at`, whatever order the spec lists them in. */
  private orderTimestamps(record: Record<string, unknown>): void {
    const keys = Object.keys(record);
    const created = keys.find(isCreatedField);
    if (!created || typeof record[created] !== 'string') {
      return;
    }
    const start = Date.parse(record[created]);
    for (const key of keys.filter(isUpdatedField)) {
      const value = record[key];
      if (typeof value === 'string' && !Number.isNaN(start) && Date.parse(value) < start) {
        const later = this.faker.date.between({ from: new Date(start), to: this.options.referenceDate });
        record[key] = value.length === 10 ? later.toISOString().slice(0, 10) : later.toISOString();
      }
    }
  }

  private smallest(schema: Schema): unknown {
    const types = schemaTypes(schema);
    if (types.includes('null')) {
      return null;
    }
    switch (types[0]) {
      case 'array':
        return [];
      case 'object':
        return {};
      case 'integer':
      case 'number':
        return typeof schema.minimum === 'number' ? schema.minimum : 0;
      case 'boolean':
        return false;
      default:
        return '';
    }
  }

  private array(schema: Schema, name: string | undefined, depth: number): unknown[] {
    const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : min + this.options.maxArrayItems;
    const count =
      depth >= this.options.optionalDepth + 2
        ? min
        : this.faker.number.int({
            min: Math.max(min, Math.min(1, max)),
            max: Math.min(max, min + this.options.maxArrayItems),
          });
    const items: unknown[] = [];
    const seen = new Set<string>();
    for (let attempt = 0; items.length < count && attempt < count * 4; attempt++) {
      const item = this.value(schema.items ?? {}, singular(name), depth + 1);
      const key = JSON.stringify(item);
      if (schema.uniqueItems === true && seen.has(key)) {
        continue;
      }
      seen.add(key);
      items.push(item);
    }
    return items;
  }

  /**
   * A list under `items` (draft 4's tuple form) checks an array position by position: item i against `items[i]`.
   * Declared an array, it gets one value per position. Without a declared type only arrays are checked, so any other
   * value is valid, and specs converted from other formats (Slack's: `[{type: null}, {enum: [owner, admin]}]`) write
   * the alternatives of one value that way: a value of one of the positions that is not itself an array is what the
   * API sends, and a non-null one says more.
   */
  private tuple(schema: Schema, positions: unknown[], name: string | undefined, depth: number): unknown {
    if (schema.type === undefined) {
      const alternatives = positions.filter((position) => {
        const types = schemaTypes(flattenSchema(this.document, position));
        return !types.includes('array') && (types.length === 0 || types.some((type) => type !== 'null'));
      });
      if (alternatives.length > 0) {
        return this.value(this.faker.helpers.arrayElement(alternatives), name, depth);
      }
    }
    const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const max = typeof schema.maxItems === 'number' ? schema.maxItems : positions.length;
    const rest = schema.additionalItems;
    const count = Math.max(min, Math.min(max, positions.length));
    return Array.from({ length: count }, (_, index) =>
      this.value(
        index < positions.length ? positions[index] : rest && typeof rest === 'object' ? rest : {},
        singular(name),
        depth + 1,
      ),
    );
  }

  private bounds(schema: Schema, fallback: [number, number]): [number, number] {
    let min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
    let max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    if (typeof schema.exclusiveMinimum === 'number') {
      min = schema.exclusiveMinimum + Number.EPSILON * Math.max(1, Math.abs(schema.exclusiveMinimum)) * 4;
    }
    if (typeof schema.exclusiveMaximum === 'number') {
      max = schema.exclusiveMaximum - Number.EPSILON * Math.max(1, Math.abs(schema.exclusiveMaximum)) * 4;
    }
    if (schema.exclusiveMinimum === true && min !== undefined) {
      min += 1e-9;
    }
    if (schema.exclusiveMaximum === true && max !== undefined) {
      max -= 1e-9;
    }
    const low = min ?? Math.min(fallback[0], max ?? fallback[0]);
    const high = max ?? Math.max(fallback[1], low);
    return [low, Math.max(low, high)];
  }

  private integer(schema: Schema, name: string | undefined): number {
    const kind = numberKindOf(name);
    const fallback: [number, number] = kind === 'quantity' ? [1, 50] : kind === 'money' ? [10, 5000] : [1, 1000];
    let [min, max] = this.bounds(schema, fallback);
    min = Math.ceil(schema.exclusiveMinimum === true || typeof schema.exclusiveMinimum === 'number' ? min + 0.5 : min);
    max = Math.floor(schema.exclusiveMaximum === true || typeof schema.exclusiveMaximum === 'number' ? max - 0.5 : max);
    const step = typeof schema.multipleOf === 'number' && schema.multipleOf >= 1 ? schema.multipleOf : 1;
    const value =
      this.faker.number.int({
        min: Math.ceil(min / step),
        max: Math.max(Math.ceil(min / step), Math.floor(max / step)),
      }) * step;
    return value;
  }

  private number(schema: Schema, name: string | undefined): number {
    const kind = numberKindOf(name);
    if (kind === 'latitude' && schema.minimum === undefined) {
      return this.faker.location.latitude();
    }
    if (kind === 'longitude' && schema.minimum === undefined) {
      return this.faker.location.longitude();
    }
    const fallback: [number, number] = kind === 'percentage' ? [0, 100] : kind === 'money' ? [10, 5000] : [0, 1000];
    const [min, max] = this.bounds(schema, fallback);
    if (typeof schema.multipleOf === 'number') {
      const steps = this.faker.number.int({
        min: Math.ceil(min / schema.multipleOf),
        max: Math.max(Math.ceil(min / schema.multipleOf), Math.floor(max / schema.multipleOf)),
      });
      return Number((steps * schema.multipleOf).toPrecision(12));
    }
    return this.faker.number.float({ min, max, fractionDigits: 2 });
  }

  private string(schema: Schema, name: string | undefined): string {
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const format = typeof schema.format === 'string' ? schema.format : undefined;
    let value: string | undefined = this.fromSpec(schema, name, format);
    if (value !== undefined) {
      return value;
    }
    if (typeof schema.pattern === 'string') {
      // A value that reads right (an ISO currency code) beats a random string, when it also fits the pattern.
      const pattern = schema.pattern;
      const natural = [maxLength, 2, 3]
        .map((limit) => stringForField(this.faker, name, { maxLength: limit }))
        .find((candidate) => candidate !== undefined && matches(pattern, candidate));
      value = natural ?? this.fromPattern(pattern, minLength, maxLength);
    }
    value ??= format ? this.formatted(format, name) : undefined;
    value ??= stringForField(this.faker, name, { maxLength });
    value ??= this.faker.lorem.words({ min: 1, max: 3 });
    if (typeof schema.pattern === 'string' || (format && formatsWithFixedShape.has(format))) {
      return value;
    }
    if (maxLength !== undefined && value.length > maxLength) {
      value = value.slice(0, maxLength);
    }
    while (value.length < minLength) {
      value += this.faker.string.alpha({ length: minLength - value.length, casing: 'lower' });
    }
    return value;
  }

  /**
   * What the spec itself says the value is, before anything Faker makes: values the description lists ("either open
   * or closed"), then the property's examples and default. Categories and tokens take an example as it is (a client
   * branches on `open`); an identifier-like example keeps its shape with new digits (`PO-1042` → `PO-3381`), so
   * records stay distinct; free text takes the example in one record of three and otherwise what the field's name
   * suggests, because identical free text in every record hides what distinct values reveal (search, ordering,
   * duplicates) and a client never branches on it. A format (`date-time`, `email`) beats an example: it varies.
   */
  private fromSpec(schema: Schema, name: string | undefined, format: string | undefined): string | undefined {
    const fits = (value: unknown): value is string => typeof value === 'string' && fitsString(schema, value);
    // A formatted value (a date) is never one of a list of words; its description talks about something else.
    const described = format ? [] : describedValues(schema.description).filter(fits);
    if (described.length > 0) {
      return this.faker.helpers.arrayElement(described);
    }
    const examples = exampleValues(schema).filter(fits);
    if (examples.length === 0) {
      return undefined;
    }
    const example = this.faker.helpers.arrayElement(examples);
    if (isCategoryField(name) || (isToken(example) && !format)) {
      return example;
    }
    if (format && formatsWithFixedShape.has(format)) {
      return undefined;
    }
    if (!/\s/.test(example) && /\d/.test(example)) {
      const redrawn = example.replace(/\d/g, (digit, at: number) =>
        String(this.faker.number.int({ min: at === example.search(/\d/) && digit !== '0' ? 1 : 0, max: 9 })),
      );
      return fitsString(schema, redrawn) ? redrawn : example;
    }
    if (/\s/.test(example) && this.faker.number.int({ min: 0, max: 2 }) > 0) {
      return undefined;
    }
    return example;
  }

  /** Repetitions are tried long, then short, until the string also fits the length bounds. */
  private fromPattern(pattern: string, minLength: number, maxLength: number | undefined): string | undefined {
    let generated: string | undefined;
    for (const repetitions of [8, 3, 1]) {
      try {
        const generator = new RandExp(pattern);
        generator.max = repetitions;
        generator.randInt = (from: number, to: number) => this.faker.number.int({ min: from, max: to });
        generated = generator.gen();
      } catch {
        return undefined;
      }
      if (generated.length >= minLength && (maxLength === undefined || generated.length <= maxLength)) {
        return generated;
      }
    }
    return generated;
  }

  private formatted(format: string, name: string | undefined): string | undefined {
    const past = (): Date => this.faker.date.past({ years: 2, refDate: this.options.referenceDate });
    switch (format) {
      case 'date-time':
        return past().toISOString();
      case 'date':
        return past().toISOString().slice(0, 10);
      case 'time':
        return past().toISOString().slice(11, 19);
      case 'email':
      case 'idn-email':
        return this.faker.internet.email().toLowerCase();
      case 'uri':
      case 'url':
      case 'iri':
      case 'uri-reference':
        return stringForField(this.faker, name, {})?.startsWith('http')
          ? stringForField(this.faker, name, {})
          : this.faker.internet.url();
      case 'uuid':
        return this.faker.string.uuid();
      case 'hostname':
      case 'idn-hostname':
        return this.faker.internet.domainName();
      case 'ipv4':
        return this.faker.internet.ipv4();
      case 'ipv6':
        return this.faker.internet.ipv6();
      case 'byte':
        return Buffer.from(this.faker.lorem.word()).toString('base64');
      case 'duration':
        return `PT${this.faker.number.int({ min: 1, max: 59 })}M`;
      default:
        return undefined;
    }
  }
}

const formatsWithFixedShape = new Set([
  'date-time',
  'date',
  'time',
  'uuid',
  'ipv4',
  'ipv6',
  'email',
  'uri',
  'url',
  'byte',
]);

const annotations = ['description', 'example', 'examples', 'default'];

/**
 * OpenAPI 3.1 lets a `$ref` carry its own description and examples (`state: { $ref: State, description: "Either open
 * or closed" }`): they describe this use of the schema and win over the target's. Only for non-branching targets, so
 * the validator cache (by schema object) is not defeated where `oneOf` candidates are checked.
 */
const withAnnotations = (raw: unknown, resolved: Schema): Schema => {
  if (!raw || typeof raw !== 'object' || !('$ref' in raw) || resolved.oneOf || resolved.anyOf) {
    return resolved;
  }
  const own = Object.fromEntries(annotations.filter((key) => key in raw).map((key) => [key, (raw as Schema)[key]]));
  return Object.keys(own).length > 0 ? { ...resolved, ...own } : resolved;
};

/** Length and pattern, the checks a string value can fail without ajv (compiling per candidate costs too much). */
const fitsString = (schema: Schema, value: string): boolean =>
  (typeof schema.maxLength !== 'number' || value.length <= schema.maxLength) &&
  (typeof schema.minLength !== 'number' || value.length >= schema.minLength) &&
  (typeof schema.pattern !== 'string' || matches(schema.pattern, value)) &&
  (!Array.isArray(schema.enum) || schema.enum.includes(value));

const matches = (pattern: string, value: string): boolean => {
  try {
    // The spec's pattern, so the linear-time engine: a backtracking one can hang on a hostile pattern.
    return patternProblem(pattern) === undefined && linearPattern(pattern).test(value);
  } catch {
    return false;
  }
};

const singular = (name: string | undefined): string | undefined =>
  name === undefined ? undefined : name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.replace(/s$/, '');

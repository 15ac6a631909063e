import * as path from 'node:path';

import {
  BundleFiles,
  resolveBundlePath,
  bundleLimits,
  parseDocument,
  appendPointer,
  getAtPointer,
  parsePointer,
  SourceLocator,
  IngestionError,
  IngestionProblem,
  BudgetBreach,
  describeBreach,
} from '@libs/bundle-documents';

import { childContext, ValueContext } from '../openapi/schema-contexts';

/** Where a node of the bundled document came from, so problems found later still point at the user's file. */
export interface NodeOrigin {
  file: string;
  pointer: string;
}

export interface BundledDocument {
  document: Record<string, unknown>;
  origins: WeakMap<object, NodeOrigin>;
  /** Every file the entry reached through references, entry first. */
  files: string[];
  /** Files read from outside the entry's folder (only when references were not confined), each with the first $ref to it. */
  outside: { file: string; from: string; pointer: string }[];
  /** Dangling references degraded under `lenient`, at the `$ref`'s place. */
  degraded: { file: string; pointer: string; message: string }[];
  referenceCount: number;
}

export interface BundleOptions {
  /** Where hoisted external schemas go: `/components/schemas` (OpenAPI 3) or `/definitions` (Swagger 2.0). */
  schemaSection: 'components' | 'definitions';
  /** Refuse references that leave the bundle folder. */
  confined: boolean;
  /** Said after a refused outside reference: how its user could allow it, where they can. */
  outsideHint?: string;
  /**
   * Degrade a `$ref` that resolves to nothing, where it sits on an optional part (a property the schema does not
   * require, an error response), instead of refusing the spec: the part becomes `{}` (any value) or a bare response,
   * and a located warning says so. Real specs ship with such holes; without the flag the refusal says how to allow it.
   */
  lenient?: boolean;
}

const specDocumentFile = /\.(json|ya?ml)$/i;

/** Unconfined references are refused only when absolute; confined ones may say how their user could allow them. */
const outsideReason = (options: BundleOptions): string =>
  !options.confined ? ' (an absolute path is never read)' : options.outsideHint ? ` (${options.outsideHint})` : '';

const escapeSegment = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const isRemote = (reference: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith('//');

const componentName = (file: string, pointer: string): string => {
  const segments = parsePointer(pointer);
  const base = segments.length > 0 ? segments[segments.length - 1] : path.posix.basename(file).replace(/\.[^.]+$/, '');
  return base.replace(/[^A-Za-z0-9._-]/g, '_') || 'Schema';
};

/**
 * Resolves every `$ref` of a multi-file spec into one self-contained document, the way a human would write it:
 * external schemas are hoisted into the components section under their own names (so cycles stay cycles, and types
 * keep readable names), other external objects (parameters, responses, path items) are inlined, and references
 * inside the entry file are kept. Nothing outside the bundle is read and nothing is fetched from the network.
 */
export class ReferenceBundler {
  private readonly parsed = new Map<string, unknown>();
  private readonly origins = new WeakMap<object, NodeOrigin>();
  private readonly problems: IngestionProblem[] = [];
  private readonly hoistedNames = new Map<string, string>();
  private readonly hoistedSchemas = new Map<string, unknown>();
  private readonly usedNames = new Set<string>();
  private readonly inlining = new Set<string>();
  private readonly outside = new Map<string, { file: string; from: string; pointer: string }>();
  private readonly degraded: { file: string; pointer: string; message: string }[] = [];
  private referenceCount = 0;
  /** What the bundled document holds so far, and how deep the walk is: the budgets references may not break. */
  private nodes = 0;
  private text = 0;
  private depth = 0;

  constructor(
    private readonly files: BundleFiles,
    private readonly locator: SourceLocator,
    private readonly options: BundleOptions,
  ) {}

  bundle(entry: string): BundledDocument {
    const root = this.load(entry, entry, '');
    if (root === undefined) {
      throw new IngestionError('REFERENCE_INVALID', this.problems);
    }
    this.entry = entry;
    for (const name of Object.keys(this.existingSchemas(root))) {
      this.usedNames.add(name);
    }
    const document = this.walk(root, entry, '', 'document', undefined) as Record<string, unknown>;
    if (this.problems.length > 0) {
      throw new IngestionError('REFERENCE_INVALID', this.problems);
    }
    if (this.hoistedSchemas.size > 0) {
      const section = this.schemaSection(document);
      for (const [name, schema] of this.hoistedSchemas) {
        section[name] = schema;
      }
    }
    return {
      document,
      origins: this.origins,
      files: [...this.parsed.keys()],
      outside: [...this.outside.values()],
      degraded: this.degraded,
      referenceCount: this.referenceCount,
    };
  }

  private entry = '';

  private existingSchemas(root: unknown): Record<string, unknown> {
    const pointer = this.options.schemaSection === 'components' ? '/components/schemas' : '/definitions';
    const section = getAtPointer(root, pointer);
    return section && typeof section === 'object' ? (section as Record<string, unknown>) : {};
  }

  private schemaSection(document: Record<string, unknown>): Record<string, unknown> {
    if (this.options.schemaSection === 'definitions') {
      document.definitions ??= {};
      return document.definitions as Record<string, unknown>;
    }
    document.components ??= {};
    const components = document.components as Record<string, unknown>;
    components.schemas ??= {};
    return components.schemas as Record<string, unknown>;
  }

  /**
   * Whether the object at `pointer` (holding a `$ref`) is an optional part of the spec: a property its schema does not
   * list as required, or a response that is not a success. Anything else a dangling reference breaks for real.
   */
  private optionalPart(
    file: string,
    pointer: string,
    mode: ValueContext,
  ): { what: string; becomes: string; value: Record<string, unknown> } | undefined {
    const segments = parsePointer(pointer);
    const [container, name] = segments.slice(-2);
    if (mode === 'schema' && container === 'properties' && name !== undefined) {
      const ownerSegments = segments.slice(0, -2);
      const owner = getAtPointer(
        this.parsed.get(file),
        ownerSegments.length === 0 ? '' : `/${ownerSegments.map(escapeSegment).join('/')}`,
      );
      const required = owner && typeof owner === 'object' ? (owner as { required?: unknown }).required : undefined;
      if (!Array.isArray(required) || !required.includes(name)) {
        return { what: `the optional property "${name}"`, becomes: 'a schema that accepts any value', value: {} };
      }
    }
    if (mode !== 'schema' && container === 'responses' && name !== undefined && !/^2/.test(name)) {
      return {
        what: `the ${name} response`,
        becomes: 'a response without a body',
        value: { description: 'Its $ref did not resolve; degraded by --lenient.' },
      };
    }
    return undefined;
  }

  private report(file: string, pointer: string, message: string): void {
    if (this.problems.length < bundleLimits.maxProblems) {
      this.problems.push(this.locator.problem(file, pointer, message));
    }
  }

  /** Parses a file once; `from` names the reference that asked for it, for the error when it is missing. */
  private load(file: string, fromFile: string, fromPointer: string): unknown {
    if (this.parsed.has(file)) {
      return this.parsed.get(file);
    }
    if (!this.files.has(file)) {
      this.report(fromFile, fromPointer, `$ref target file "${file}" does not exist in the bundle`);
      return undefined;
    }
    try {
      const value = parseDocument(file, this.files.read(file));
      this.parsed.set(file, value);
      return value;
    } catch (error) {
      if (error instanceof IngestionError) {
        this.problems.push(...error.problems);
        return undefined;
      }
      throw error;
    }
  }

  private walk(
    value: unknown,
    file: string,
    pointer: string,
    mode: ValueContext,
    parentKey: string | undefined,
  ): unknown {
    this.nodes++;
    if (typeof value === 'string') {
      this.text += value.length;
    }
    if (value === null || typeof value !== 'object') {
      return value;
    }
    this.checkBudget(file, pointer);
    if (mode === 'data') {
      // Example data is opaque, but an example that is wholly `{ $ref }` is resolved the way vendor tools do
      // (DigitalOcean keeps its examples in separate files); nothing inside data is looked at.
      const reference = (value as { $ref?: unknown }).$ref;
      return typeof reference === 'string' && Object.keys(value).length === 1
        ? this.followReference(value as Record<string, unknown>, file, pointer, mode, parentKey)
        : value;
    }
    if (Array.isArray(value)) {
      this.depth++;
      const out = value.map((item, index) =>
        this.walk(item, file, `${pointer}/${index}`, mode === 'schema-map' ? 'schema' : mode, parentKey),
      );
      this.depth--;
      this.origins.set(out, { file, pointer });
      return out;
    }
    const record = value as Record<string, unknown>;
    // A property schema is never a string, so `properties: { $ref: '…' }` can only be a reference to a whole map
    // (DigitalOcean's load balancers do this); vendor tools resolve it, and so do we.
    if (typeof record.$ref === 'string') {
      return this.followReference(record, file, pointer, mode, parentKey);
    }
    const out: Record<string, unknown> = {};
    this.depth++;
    for (const key of Object.keys(record)) {
      this.text += key.length;
      out[key] = this.walk(record[key], file, appendPointer(pointer, key), childContext(mode, key, parentKey), key);
    }
    this.depth--;
    this.origins.set(out, { file, pointer });
    return out;
  }

  /**
   * Inlined references multiply: forty objects each naming the next twice are 2^40 nodes. The walk stops, with the
   * place it had reached, as soon as the bundled document outgrows what any real spec needs.
   */
  private checkBudget(file: string, pointer: string): void {
    const breach: BudgetBreach | undefined =
      this.depth > bundleLimits.maxDepth
        ? { kind: 'depth', pointer }
        : this.nodes > bundleLimits.maxDocumentNodes
          ? { kind: 'nodes', pointer }
          : this.text > bundleLimits.maxDocumentTextBytes
            ? { kind: 'text', pointer }
            : undefined;
    if (breach) {
      throw IngestionError.single(
        'REFERENCE_INVALID',
        this.locator.problem(file, pointer, `${describeBreach(breach, '$refs')} once bundled`),
      );
    }
    if (this.referenceCount > bundleLimits.maxReferences) {
      throw IngestionError.single(
        'REFERENCE_INVALID',
        this.locator.problem(
          file,
          pointer,
          `more than ${bundleLimits.maxReferences.toLocaleString('en')} $refs to follow`,
        ),
      );
    }
  }

  private followReference(
    record: Record<string, unknown>,
    file: string,
    pointer: string,
    mode: ValueContext,
    parentKey: string | undefined,
  ): unknown {
    this.referenceCount++;
    const reference = record.$ref as string;
    const at = appendPointer(pointer, '$ref');
    if (isRemote(reference)) {
      this.report(file, at, `remote $ref "${reference}" refused: ingestion never reads from the network`);
      return {};
    }
    const hash = reference.indexOf('#');
    const filePart = hash === -1 ? reference : reference.slice(0, hash);
    let targetPointer: string;
    try {
      targetPointer = hash === -1 ? '' : decodeURIComponent(reference.slice(hash + 1));
    } catch {
      targetPointer = reference.slice(hash + 1);
    }
    if (targetPointer !== '' && !targetPointer.startsWith('/')) {
      this.report(file, at, `$ref "${reference}" uses a plain-name fragment; only JSON pointers are supported`);
      return {};
    }
    const targetFile = filePart === '' ? file : resolveBundlePath(file, filePart, this.options.confined);
    if (targetFile === undefined) {
      this.report(file, at, `$ref "${reference}" points outside the bundle${outsideReason(this.options)}`);
      return {};
    }
    if (targetFile === '..' || targetFile.startsWith('../')) {
      if (!specDocumentFile.test(targetFile)) {
        this.report(
          file,
          at,
          `$ref "${reference}" points outside the spec's folder to a file that is not a JSON or YAML document`,
        );
        return {};
      }
      if (!this.outside.has(targetFile)) {
        this.outside.set(targetFile, { file: targetFile, from: file, pointer: at });
      }
    }
    const targetRoot = this.load(targetFile, file, at);
    if (targetRoot === undefined) {
      return {};
    }
    const target = getAtPointer(targetRoot, targetPointer);
    if (target === undefined) {
      const message = `$ref "${reference}" does not resolve: "${targetPointer}" is not in ${targetFile}`;
      const optional = this.optionalPart(file, pointer, mode);
      if (optional && this.options.lenient) {
        this.degraded.push({
          file,
          pointer: at,
          message: `${message}; ${optional.what} degraded to ${optional.becomes} (--lenient)`,
        });
        return optional.value;
      }
      this.report(
        file,
        at,
        optional
          ? `${message} (on ${optional.what}: --lenient degrades it to ${optional.becomes} with a warning)`
          : message,
      );
      return {};
    }
    const kind = misplacedTarget(target, mode, parentKey);
    if (kind) {
      // A text file read as YAML is one string (`$ref: ./passwd`): stored where a Response Object belongs, it would
      // hand the file's contents to whoever calls the twin.
      this.report(
        file,
        at,
        `$ref "${reference}" leads to ${kind} in ${targetFile}, where ${mode === 'schema' ? 'a schema' : 'an OpenAPI object'} belongs`,
      );
      return {};
    }
    const siblings: Record<string, unknown> = {};
    for (const key of Object.keys(record)) {
      if (key !== '$ref') {
        siblings[key] = this.walk(
          record[key],
          file,
          appendPointer(pointer, key),
          childContext(mode, key, parentKey),
          key,
        );
      }
    }
    let out: Record<string, unknown>;
    if (mode === 'schema') {
      const internal =
        targetFile === this.entry ? `#${reference.slice(hash + 1)}` : this.hoist(targetFile, targetPointer, target);
      out = { $ref: internal, ...siblings };
    } else if (targetFile === this.entry && filePart === '' && file === this.entry) {
      out = { $ref: reference, ...siblings };
    } else {
      const key = `${targetFile}#${targetPointer}`;
      if (this.inlining.has(key)) {
        this.report(file, at, `$ref "${reference}" is circular through objects that are not schemas`);
        return {};
      }
      this.inlining.add(key);
      const inlined = this.walk(target, targetFile, targetPointer, mode, parentKey);
      this.inlining.delete(key);
      out =
        inlined && typeof inlined === 'object' && !Array.isArray(inlined)
          ? { ...(inlined as Record<string, unknown>), ...siblings }
          : (inlined as Record<string, unknown>);
    }
    if (out && typeof out === 'object') {
      this.origins.set(out, { file, pointer });
    }
    return out;
  }

  /** Moves an external schema into the components section once; later references and cycles reuse its name. */
  private hoist(file: string, pointer: string, target: unknown): string {
    const key = `${file}#${pointer}`;
    const known = this.hoistedNames.get(key);
    if (known) {
      return this.internalPointer(known);
    }
    const base = componentName(file, pointer);
    let name = base;
    for (let n = 2; this.usedNames.has(name); n++) {
      name = `${base}_${n}`;
    }
    this.usedNames.add(name);
    this.hoistedNames.set(key, name);
    this.hoistedSchemas.set(name, {});
    this.hoistedSchemas.set(name, this.walk(target, file, pointer, 'schema', undefined));
    return this.internalPointer(name);
  }

  private internalPointer(name: string): string {
    return this.options.schemaSection === 'components'
      ? `#${appendPointer('/components/schemas', name)}`
      : `#${appendPointer('/definitions', name)}`;
  }
}

/** OpenAPI fields whose value is text, which a reference may fill from another file. */
const textFields = new Set(['description', 'summary', 'title', 'termsOfService']);

/**
 * What a reference's target is when it cannot stand where the reference is (text, a number, a list where an object
 * belongs; JSON Schema also allows `true`/`false`, and a list of OpenAPI objects is read as one), or undefined when it can. Example data may be anything.
 */
const misplacedTarget = (target: unknown, mode: ValueContext, parentKey: string | undefined): string | undefined => {
  if (mode === 'data' || (target !== null && typeof target === 'object' && !Array.isArray(target))) {
    return undefined;
  }
  if (mode === 'document' && typeof target === 'string' && parentKey !== undefined && textFields.has(parentKey)) {
    // Long descriptions kept in a file of their own (`description: { $ref: description.yml#/introduction }`).
    return undefined;
  }
  if ((mode === 'schema' && typeof target === 'boolean') || (mode === 'document' && Array.isArray(target))) {
    // Vendor tools also resolve a reference to a whole list (`parameters: { $ref: common.yaml#/params }`).
    return undefined;
  }
  return Array.isArray(target)
    ? 'a list'
    : target === null
      ? 'null'
      : `${typeof target === 'string' ? 'text' : `a ${typeof target}`}`;
};

/** Finds the user's file and pointer for any place in a bundled document, via the deepest node with a known origin. */
export const originOf = (bundled: BundledDocument, pointer: string): NodeOrigin => {
  let node: unknown = bundled.document;
  let best: NodeOrigin = { file: bundled.files[0] ?? '', pointer };
  let rest: string[] = parsePointer(pointer);
  const segments = [...rest];
  for (let i = 0; i <= segments.length; i++) {
    const origin = node && typeof node === 'object' ? bundled.origins.get(node) : undefined;
    if (origin) {
      best = origin;
      rest = segments.slice(i);
    }
    if (i === segments.length || node === null || typeof node !== 'object') {
      break;
    }
    node = (node as Record<string, unknown>)[segments[i]];
  }
  return { file: best.file, pointer: appendPointer(best.pointer, ...rest) };
};

import * as path from 'node:path';

import Ajv2020 from 'ajv/dist/2020';
import AjvDraft7 from 'ajv';

import { BundleFiles, parseDocument, appendPointer, SourceLocator, IngestionError } from '@libs/bundle-documents';
import { EntityModel, FieldModel, RelationModel } from '@libs/stack-model';

import { asRecord } from '../openapi/internal-reference';

export interface SchemaEntities {
  entities: EntityModel[];
  relations: RelationModel[];
}

// Meta-schema validation only: compiled once, reused for every file.
const draft2020 = new Ajv2020({ strict: false, validateFormats: false });
const draft7 = new AjvDraft7({ strict: false, validateFormats: false });

const typeOf = (schema: Record<string, unknown>): { type: string; nullable: boolean } => {
  const raw = schema.type;
  const types = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? [raw] : [];
  const nullable = types.includes('null') || schema.nullable === true;
  const concrete = types.filter((t) => t !== 'null');
  if (concrete.length > 0) {
    return { type: concrete.join('|'), nullable };
  }
  if (typeof schema.$ref === 'string') {
    return { type: 'reference', nullable };
  }
  return { type: schema.properties ? 'object' : 'any', nullable };
};

const entityNameOf = (file: string, schema: Record<string, unknown>): string =>
  typeof schema.title === 'string' && /^[A-Za-z][\w-]*$/.test(schema.title)
    ? schema.title
    : path.posix.basename(file).replace(/\.[^.]+$/, '');

/** Where a `$ref` inside a data schema points: another schema file, or a definition in this one. */
const referencedEntity = (file: string, reference: string, namesByRef: Map<string, string>): string | undefined => {
  const [target, fragment = ''] = reference.split('#');
  const targetFile = target ? path.posix.normalize(path.posix.join(path.posix.dirname(file), target)) : file;
  return namesByRef.get(`${targetFile}#${fragment}`) ?? namesByRef.get(`${targetFile}#`);
};

/**
 * JSON Schema files become entities: the root object schema and each object under `$defs`/`definitions`. A property
 * that `$ref`s another entity is a declared relation; the primary key is `x-primary-key` or `id`.
 */
export const readJsonSchemaEntities = (
  files: BundleFiles,
  locator: SourceLocator,
  schemaFiles: string[],
): SchemaEntities => {
  const parsed: { file: string; pointer: string; name: string; schema: Record<string, unknown> }[] = [];
  const namesByRef = new Map<string, string>();
  for (const file of schemaFiles) {
    const root = parseDocument(file, files.read(file));
    if (root === null || typeof root !== 'object' || Array.isArray(root)) {
      throw IngestionError.single('DATA_SCHEMA_INVALID', locator.problem(file, '', 'a JSON Schema must be an object'));
    }
    const schema = root as Record<string, unknown>;
    const validator = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12') ? draft2020 : draft7;
    if (!validator.validateSchema(schema) && validator.errors) {
      throw new IngestionError(
        'DATA_SCHEMA_INVALID',
        // One problem per place: ajv also reports every anyOf branch that failed, which only repeats the first.
        [...new Map(validator.errors.map((e) => [e.instancePath, e] as const).reverse()).values()]
          .reverse()
          .slice(0, 20)
          .map((e) => locator.problem(file, e.instancePath, `invalid JSON Schema: ${e.message ?? 'invalid'}`)),
      );
    }
    if (schema.properties) {
      const name = entityNameOf(file, schema);
      parsed.push({ file, pointer: '', name, schema });
      namesByRef.set(`${file}#`, name);
    }
    for (const section of ['$defs', 'definitions']) {
      for (const [key, definition] of Object.entries(asRecord(schema[section]))) {
        if (asRecord(definition).properties) {
          parsed.push({ file, pointer: appendPointer(`/${section}`, key), name: key, schema: asRecord(definition) });
          namesByRef.set(`${file}#${appendPointer(`/${section}`, key)}`, key);
        }
      }
    }
  }

  const entities: EntityModel[] = [];
  const relations: RelationModel[] = [];
  for (const { file, name, schema } of parsed) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const properties = asRecord(schema.properties);
    const fields: FieldModel[] = Object.entries(properties).map(([fieldName, raw]) => {
      const property = asRecord(raw);
      const { type, nullable } = typeOf(property);
      if (typeof property.$ref === 'string') {
        const target = referencedEntity(file, property.$ref, namesByRef);
        if (target) {
          relations.push({
            from: { entity: name, fields: [fieldName] },
            to: { entity: target, fields: [] },
            origin: 'declared',
          });
        }
      }
      return {
        name: fieldName,
        type,
        ...(typeof property.format === 'string' ? { format: property.format } : {}),
        required: required.has(fieldName),
        nullable,
      };
    });
    const declaredKey = schema['x-primary-key'];
    const primaryKey = Array.isArray(declaredKey)
      ? declaredKey.map(String)
      : typeof declaredKey === 'string'
        ? [declaredKey]
        : 'id' in properties
          ? ['id']
          : [];
    entities.push({ name, source: { file, kind: 'json-schema' }, primaryKey, fields, resources: [] });
  }
  return { entities, relations };
};

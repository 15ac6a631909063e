import { createHash } from 'node:crypto';

import type { Faker } from '@faker-js/faker';

import {
  DocumentValidators,
  ResourceShape,
  resourceShapes,
  flattenSchema,
  Schema,
  schemaTypes,
} from '@libs/openapi-schemas';
import type { FieldProfile, RelationModel, SampleProfile, StackModel } from '@libs/stack-model';
import { canonicalName as canonical } from '@libs/stack-model';

import { synthesizeCompany } from './company';
import { CompanyPeople, declaredPeopleResources, fillPerson, personFields } from './company-people';
import { buildDataTables } from './data-tables';
import { isCreatedField, isUpdatedField, subjectName } from './field-heuristics';
import { englishFaker } from './mersenne-randomizer';
import { hashSeed } from './seeded-random';
import { defaultSynthesisOptions, ValueSynthesizer } from './value-synthesizer';
import { World, WorldRecord, WorldSizes, WorldTable } from './world';

export const worldKey = (stackVersion: string, seed: number, sizes: WorldSizes): string =>
  createHash('sha256')
    .update(JSON.stringify([stackVersion, seed, sizes]))
    .digest('hex')
    .slice(0, 32);

interface MutableTable {
  shape: ResourceShape;
  ids: string[];
  records: Map<string, WorldRecord>;
  parentOf: Map<string, string>;
  childrenOf: Map<string, string[]>;
}

/** `name` of an organisation-like record reads like a company, when the schema lets it be any string. */
export const nameBySubject = (record: WorldRecord, shape: ResourceShape, synthesizer: ValueSynthesizer): void => {
  const property = (shape.record.properties as Record<string, Record<string, unknown>> | undefined)?.name;
  if (typeof record.name !== 'string' || !property || property.enum || property.pattern || property.format) {
    return;
  }
  const name = subjectName(synthesizer.faker, shape.resource.name);
  const maxLength = typeof property.maxLength === 'number' ? property.maxLength : Infinity;
  if (name !== undefined && name.length <= maxLength) {
    record.name = name;
  }
};

/**
 * A subject or description in the client's words, as long as the client's own: it opens as the client's values do,
 * and each next word is one that follows the last in them, else any of their words.
 */
const prose = (
  profile: NonNullable<Extract<FieldProfile, { kind: 'text' }>['prose']>,
  minLength: number,
  maxLength: number,
  faker: Faker,
): string => {
  const count = faker.number.int({ min: Math.max(1, profile.minWords), max: Math.max(1, profile.maxWords) });
  const pick = (options: { value: string; weight: number }[]): string =>
    faker.helpers.weightedArrayElement(options.length > 0 ? options : profile.words);
  let last = pick(profile.starts);
  let text = last;
  // As many words as the client's values have, then more while still shorter than the shortest of them.
  // A word with no follower seen in the samples ends the text early: any word after it would read as word salad.
  for (let n = 1; n < count || text.length < minLength; n++) {
    const followers = profile.pairs.filter((p) => p.from === last).map((p) => ({ value: p.to, weight: p.weight }));
    if (followers.length === 0 && n >= Math.max(2, profile.minWords)) {
      break;
    }
    last = pick(followers);
    if (text.length + last.length + 1 > maxLength || n > 4 * Math.max(1, profile.maxWords)) {
      break;
    }
    text = `${text} ${last}`;
  }
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** A code in the client's format: one of their masks, their shared prefix, new letters and digits. */
const fromShape = (shapes: NonNullable<Extract<FieldProfile, { kind: 'text' }>['shapes']>, faker: Faker): string => {
  const mask = faker.helpers.weightedArrayElement(shapes.masks);
  const masked = (text: string): string =>
    text
      .replace(/\p{Lu}/gu, 'A')
      .replace(/\p{Ll}/gu, 'a')
      .replace(/\p{N}/gu, '9');
  const keepsPrefix = shapes.prefix !== '' && mask.startsWith(masked(shapes.prefix));
  const rest = [...mask.slice(keepsPrefix ? shapes.prefix.length : 0)]
    .map((char) =>
      char === 'A'
        ? faker.string.alpha({ length: 1, casing: 'upper' })
        : char === 'a'
          ? faker.string.alpha({ length: 1, casing: 'lower' })
          : char === '9'
            ? faker.string.numeric(1)
            : char,
    )
    .join('');
  return `${keepsPrefix ? shapes.prefix : ''}${rest}`;
};

/** A value longer than the client's longest is cut at a word; one shorter than their shortest is left: no padding. */
const withinLength = (value: string, maxLength: number): string => {
  if (value.length <= maxLength) {
    return value;
  }
  const cut = value.slice(0, maxLength);
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '');
};

/**
 * Makes a synthesized record look like the client's: categories drawn with the sample's frequencies, numbers and
 * dates within the sample's range, prose from the sample's vocabulary, codes in the sample's format, text no longer
 * than the sample's. Only where the result is still valid for the record's schema.
 */
const fitToSample = (
  record: WorldRecord,
  shape: ResourceShape,
  profile: Record<string, FieldProfile>,
  faker: Faker,
  isValid: (schema: object, value: unknown) => boolean,
): void => {
  const properties = (shape.record.properties ?? {}) as Record<string, object>;
  for (const [field, fitted] of Object.entries(profile)) {
    if (!(field in properties) || field === shape.idField || field === shape.parentField) {
      continue;
    }
    let value: unknown;
    switch (fitted.kind) {
      case 'categorical':
        value = faker.helpers.weightedArrayElement(fitted.values.map(({ value: v, weight }) => ({ value: v, weight })));
        break;
      case 'numeric':
        value = fitted.integer
          ? faker.number.int({ min: fitted.min, max: fitted.max })
          : faker.number.float({ min: fitted.min, max: fitted.max, fractionDigits: 2 });
        break;
      case 'date': {
        const date = faker.date.between({ from: fitted.from, to: fitted.to }).toISOString();
        value = typeof record[field] === 'string' && record[field].length === 10 ? date.slice(0, 10) : date;
        break;
      }
      case 'text':
        if (typeof record[field] !== 'string') {
          continue;
        }
        // Prose from the client's words, codes in the client's format, anything else (a name) as long as theirs.
        value = fitted.prose
          ? prose(fitted.prose, fitted.minLength, fitted.maxLength, faker)
          : fitted.shapes
            ? fromShape(fitted.shapes, faker)
            : withinLength(record[field], fitted.maxLength);
        break;
      case 'redacted':
        continue;
    }
    if (isValid(properties[field], value)) {
      record[field] = value;
    }
  }
};

/**
 * A sampled `created_at` can fall after the synthesized `updated_at`: the update then moves to a time after the
 * creation (and no later than the reference date, unless the creation already is).
 */
const keepTimestampsOrdered = (record: WorldRecord, faker: Faker): void => {
  const created = Object.keys(record).find(isCreatedField);
  const start = created && typeof record[created] === 'string' ? Date.parse(record[created]) : NaN;
  if (Number.isNaN(start)) {
    return;
  }
  for (const key of Object.keys(record).filter(isUpdatedField)) {
    const value = record[key];
    if (typeof value === 'string' && Date.parse(value) < start) {
      const end = Math.max(start, defaultSynthesisOptions.referenceDate.getTime());
      const later = faker.date.between({ from: start, to: end }).toISOString();
      record[key] = value.length === 10 ? later.slice(0, 10) : later;
    }
  }
};

const profilesByTable = (
  samples: SampleProfile[] | undefined,
  entityResources: Map<string, string[]>,
): Map<string, Record<string, FieldProfile>> => {
  const byTable = new Map<string, Record<string, FieldProfile>>();
  for (const sample of samples ?? []) {
    const tables = sample.target.includes('/') ? [sample.target] : (entityResources.get(sample.target) ?? []);
    for (const table of tables) {
      byTable.set(table, { ...byTable.get(table), ...sample.fields });
    }
  }
  return byTable;
};

/** Parents before children, so a child can name a parent that already exists. */
const byDepth = (shapes: ResourceShape[]): ResourceShape[] => {
  const depth = (shape: ResourceShape): number => shape.resource.name.split('.').length;
  return [...shapes].sort((a, b) => depth(a) - depth(b));
};

const makeId = (
  synthesizer: ValueSynthesizer,
  shape: ResourceShape,
  index: number,
  record: WorldRecord,
): string | number => {
  if (shape.idKind === 'integer') {
    return index + 1;
  }
  if (shape.idKind === 'uuid') {
    return synthesizer.faker.string.uuid();
  }
  if (shape.idSchema) {
    const made = synthesizer.value(shape.idSchema, shape.idField);
    if (typeof made === 'string' && made !== '') {
      return made;
    }
  }
  const fromSchema = record[shape.idField];
  const idSchema = flattenSchema(
    {},
    (shape.record.properties as Record<string, unknown> | undefined)?.[shape.idField] ?? {},
  );
  if (typeof fromSchema === 'string' && (idSchema.pattern !== undefined || idSchema.format !== undefined)) {
    return fromSchema;
  }
  const leaf = canonical(shape.resource.name.split('.').pop() ?? 'rec');
  return `${leaf.slice(0, 3)}_${synthesizer.faker.string.alphanumeric({ length: 12, casing: 'lower' })}`;
};

/** Fields that point at another resource: declared relations first, then `<resource>_id` names. */
const foreignKeys = (
  shape: ResourceShape,
  tables: Map<string, MutableTable>,
  relations: RelationModel[],
  entityResources: Map<string, string[]>,
): Map<string, string> => {
  const keys = new Map<string, string>();
  const properties = Object.keys(shape.record.properties ?? {});
  const sameService = [...tables.values()].filter(
    (t) => t.shape.service === shape.service && t.shape.key !== shape.key,
  );
  for (const relation of relations) {
    if (relation.from.entity !== shape.resource.entity || relation.from.fields.length !== 1) {
      continue;
    }
    const field = properties.find((p) => p === relation.from.fields[0]);
    const target = (entityResources.get(relation.to.entity) ?? [])
      .map((key) => tables.get(key))
      .find((t) => t && t.shape.service === shape.service);
    // The parent link is already right by construction; a relation must not point it at a random parent.
    if (field && target && field !== shape.idField && field !== shape.parentField) {
      keys.set(field, target.shape.key);
    }
  }
  for (const property of properties) {
    const match = /^(.+?)_?(id|Id|ID|sid|Sid)$/.exec(property);
    if (!match || property === shape.idField || property === shape.parentField || keys.has(property)) {
      continue;
    }
    const target = sameService.find(
      (t) => canonical(t.shape.resource.name.split('.').pop() ?? '') === canonical(match[1]),
    );
    if (target) {
      keys.set(property, target.shape.key);
    }
  }
  return keys;
};

const compatible = (
  document: unknown,
  schema: unknown,
  id: string,
  record: WorldRecord | undefined,
  idField: string,
): unknown => {
  const types = schemaTypes(flattenSchema(document, schema));
  const raw = record?.[idField];
  if (types.includes('integer') || types.includes('number')) {
    return typeof raw === 'number' ? raw : undefined;
  }
  return types.length === 0 || types.includes('string') ? (typeof raw === 'string' ? raw : id) : undefined;
};

/**
 * Another id for a record whose drawn one is taken (every record drew the spec's example `example`): a suffix the id
 * field's schema accepts, so a name that must match `^[a-z0-9-]{1,63}$` stays valid; `_n` only when none fits.
 */
const distinctId = (
  taken: string,
  index: number,
  schema: unknown,
  accepts: (schema: unknown, value: unknown) => boolean,
): string => {
  const candidates = [`${taken}-${index}`, `${taken}${index}`, `${taken}_${index}`];
  return (schema ? candidates.find((candidate) => accepts(schema, candidate)) : undefined) ?? `${taken}_${index}`;
};

/**
 * Builds the world of a stack: for every inferred resource, records synthesized from its record schema with a faker
 * reseeded per record (so one record does not depend on how many others exist), server-style ids, children under
 * every parent, and foreign keys that point at records that exist.
 */
export const buildWorld = (model: StackModel, stackVersion: string, seed: number, sizes: WorldSizes): World => {
  const faker = englishFaker();
  const tables = new Map<string, MutableTable>();
  const entityResources = new Map<string, string[]>();
  for (const entity of model.entities) {
    entityResources.set(
      entity.name,
      entity.resources.map((qualified) => qualified.replace('.', '/')),
    );
  }
  const profiles = profilesByTable(model.samples, entityResources);
  const peopleResources = declaredPeopleResources(model.company);
  // A data service's caller is someone of the company too: the agent acts there as the same employee.
  const usesCompany = model.services.some((s) => s.pack || s.tables) || peopleResources.size > 0;
  const company = usesCompany ? synthesizeCompany(seed, sizes.company, model.company) : undefined;
  let recordCount = 0;
  // A twin pack's service brings its own tables (see the twin engine); only specs of the stack's own are synthesized.
  for (const service of model.services.filter((s) => !s.pack)) {
    const validators = DocumentValidators.of(service.document, service.dialect);
    const synthesizer = new ValueSynthesizer(service.document, faker, {
      ...defaultSynthesisOptions,
      direction: 'response',
      isValid: (schema, value) => {
        try {
          return validators.validatorForSchema(schema)(value);
        } catch {
          // A schema ajv cannot compile cannot be checked; the candidate stands.
          return true;
        }
      },
    });
    for (const shape of byDepth(resourceShapes(service))) {
      const table: MutableTable = { shape, ids: [], records: new Map(), parentOf: new Map(), childrenOf: new Map() };
      tables.set(shape.key, table);
      const parentTable = shape.resource.parent ? tables.get(`${service.name}/${shape.resource.parent}`) : undefined;
      const parents = parentTable ? parentTable.ids : [undefined];
      const declaredPeople = peopleResources.get(shape.key);
      const people =
        declaredPeople && company
          ? { fields: personFields(shape.record, declaredPeople), of: new CompanyPeople(company, seed, shape.key) }
          : undefined;
      // Everyone in the company has an account in a resource of its people, so any employee a scenario picks has one.
      const perParent = parentTable
        ? sizes.childrenPerParent
        : (sizes.overrides?.[shape.key] ??
          Math.max(sizes.recordsPerResource, people?.fields ? (company?.employees.length ?? 0) : 0));
      const properties = (shape.record.properties ?? {}) as Record<string, Schema>;
      let index = 0;
      for (const parentId of parents) {
        for (let n = 0; n < perParent; n++, index++) {
          faker.seed(hashSeed(seed, shape.key, index));
          const record = synthesizer.value(shape.record) as WorldRecord;
          nameBySubject(record, shape, synthesizer);
          const profile = profiles.get(shape.key);
          if (profile) {
            fitToSample(record, shape, profile, faker, (schema, value) => validators.validatorForSchema(schema)(value));
            keepTimestampsOrdered(record, faker);
          }
          if (people?.fields) {
            // After the sample's fit, so a sampled name never replaces the employee's.
            fillPerson(
              record,
              people.fields,
              people.of.at(index),
              (field) => properties[field],
              (schema, value) => {
                try {
                  return validators.validatorForSchema(schema)(value);
                } catch {
                  return true;
                }
              },
            );
          }
          let id = makeId(synthesizer, shape, index, record);
          while (table.records.has(String(id))) {
            id = distinctId(String(id), index, properties[shape.idField], (schema, value) => {
              try {
                return validators.validatorForSchema(schema as object)(value);
              } catch {
                return true;
              }
            });
          }
          record[shape.idField] = id;
          if (parentId !== undefined && parentTable) {
            if (shape.parentField) {
              record[shape.parentField] = parentTable.records.get(parentId)?.[parentTable.shape.idField] ?? parentId;
            }
            table.parentOf.set(String(id), parentId);
            const siblings = table.childrenOf.get(parentId) ?? [];
            siblings.push(String(id));
            table.childrenOf.set(parentId, siblings);
          }
          table.ids.push(String(id));
          table.records.set(String(id), record);
        }
      }
      recordCount += table.ids.length;
    }
    for (const table of [...tables.values()].filter((t) => t.shape.service === service.name)) {
      const keys = foreignKeys(table.shape, tables, model.relations, entityResources);
      for (const [field, targetKey] of keys) {
        const target = tables.get(targetKey);
        if (!target || target.ids.length === 0) {
          continue;
        }
        const fieldSchema = (table.shape.record.properties as Record<string, unknown>)[field];
        table.ids.forEach((id, index) => {
          const record = table.records.get(id) as WorldRecord;
          if (record[field] === undefined && !(table.shape.record.required as string[] | undefined)?.includes(field)) {
            return;
          }
          faker.seed(hashSeed(seed, table.shape.key, index, field));
          const targetId = faker.helpers.arrayElement(target.ids);
          const value = compatible(
            service.document,
            fieldSchema,
            targetId,
            target.records.get(targetId),
            target.shape.idField,
          );
          if (value !== undefined) {
            record[field] = value;
          }
        });
      }
    }
  }
  const worldTables = new Map<string, WorldTable>(tables);
  for (const service of model.services.filter((s) => s.tables)) {
    for (const [key, table] of buildDataTables(model, service, seed, sizes)) {
      worldTables.set(key, table);
      recordCount += table.ids.length;
    }
  }
  return {
    key: worldKey(stackVersion, seed, sizes),
    stackVersion,
    seed,
    sizes,
    tables: worldTables,
    recordCount,
    ...(company ? { company } : {}),
  };
};

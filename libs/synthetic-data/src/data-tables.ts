import { DocumentValidators } from '@libs/openapi-schemas';
import type { EntityModel, RelationModel, ServiceModel, StackModel } from '@libs/stack-model';

import { englishFaker } from './mersenne-randomizer';
import { hashSeed, seededUuid } from './seeded-random';
import { defaultSynthesisOptions, ValueSynthesizer } from './value-synthesizer';
import { WorldRecord, WorldSizes, WorldTable } from './world';

/**
 * The key of a row in its table: its primary key's value (several, as a JSON array, for a composite key). A table
 * without a primary key has none; its rows are keyed by position instead.
 */
export const rowKey = (primaryKey: readonly string[], record: WorldRecord): string | undefined => {
  if (primaryKey.length === 0) {
    return undefined;
  }
  const values = primaryKey.map((field) => record[field]);
  if (values.some((value) => value === undefined || value === null)) {
    return undefined;
  }
  return primaryKey.length === 1 ? String(values[0]) : JSON.stringify(values);
};

/** Referenced tables before the tables that reference them; a cycle is broken where it closes. */
const parentsFirst = (entities: EntityModel[], relations: RelationModel[]): EntityModel[] => {
  const byName = new Map(entities.map((entity) => [entity.name, entity]));
  const ordered: EntityModel[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (entity: EntityModel): void => {
    if (state.has(entity.name)) {
      return;
    }
    state.set(entity.name, 'visiting');
    for (const relation of relations) {
      const target = byName.get(relation.to.entity);
      if (relation.from.entity === entity.name && target && target !== entity) {
        visit(target);
      }
    }
    state.set(entity.name, 'done');
    ordered.push(entity);
  };
  entities.forEach(visit);
  return ordered;
};

interface Building {
  entity: EntityModel;
  ids: string[];
  records: Map<string, WorldRecord>;
}

/** A distinct key for a row whose synthesized key collided: its own columns (never a foreign key's) made unique. */
const uniqueKey = (
  building: Building,
  record: WorldRecord,
  foreign: Set<string>,
  index: number,
): string | undefined => {
  const own = building.entity.primaryKey.filter((field) => !foreign.has(field));
  for (const field of own) {
    const value = record[field];
    record[field] = typeof value === 'number' ? building.ids.length + index + 1 : `${String(value)}-${index}`;
    const key = rowKey(building.entity.primaryKey, record);
    if (key !== undefined && !building.records.has(key)) {
      return key;
    }
  }
  return undefined;
};

/**
 * The rows of a data service's tables (`schema:` in mirror.yaml): synthesized from each table's row schema with a
 * faker reseeded per row, primary keys unique (integers count from 1, uuids drawn from the seed), and every foreign
 * key pointing at a row that exists, referenced tables first. Keyed `<service>/<table>`, as the twin reads them.
 */
export const buildDataTables = (
  model: StackModel,
  service: ServiceModel,
  seed: number,
  sizes: WorldSizes,
): Map<string, WorldTable> => {
  const served = new Set(service.tables ?? []);
  const entities = model.entities.filter((entity) => served.has(entity.name));
  const relations = model.relations.filter(
    (relation) =>
      served.has(relation.from.entity) &&
      served.has(relation.to.entity) &&
      relation.from.fields.length === relation.to.fields.length,
  );
  const faker = englishFaker();
  const validators = DocumentValidators.of(service.document, service.dialect);
  const synthesizer = new ValueSynthesizer(service.document, faker, {
    ...defaultSynthesisOptions,
    isValid: (schema, value) => {
      try {
        return validators.validatorForSchema(schema)(value);
      } catch {
        return true;
      }
    },
  });
  const built = new Map<string, Building>();
  for (const entity of parentsFirst(entities, relations)) {
    const key = `${service.name}/${entity.name}`;
    const building: Building = { entity, ids: [], records: new Map() };
    built.set(entity.name, building);
    const outgoing = relations.filter((relation) => relation.from.entity === entity.name);
    const foreign = new Set(outgoing.flatMap((relation) => relation.from.fields));
    const fieldType = new Map(entity.fields.map((field) => [field.name, field]));
    const count = sizes.overrides?.[key] ?? sizes.recordsPerResource;
    for (let index = 0; index < count; index++) {
      faker.seed(hashSeed(seed, key, index));
      const record = synthesizer.value({ $ref: `#/components/schemas/${entity.name}` }) as WorldRecord;
      for (const field of entity.fields) {
        record[field.name] ??= null;
      }
      if (entity.primaryKey.length === 1 && !foreign.has(entity.primaryKey[0])) {
        const [field] = entity.primaryKey;
        const type = fieldType.get(field)?.type.toLowerCase() ?? '';
        if (/int|serial/.test(type)) {
          record[field] = index + 1;
        } else if (type === 'uuid') {
          record[field] = seededUuid(hashSeed(seed, key, index, 'key'));
        }
      }
      outgoing.forEach((relation, position) => {
        const target = built.get(relation.to.entity);
        // A row may point at its own table's earlier rows only; the first row of a self-reference points nowhere.
        const candidates = target === building ? building.ids : (target?.ids ?? []);
        if (!target || candidates.length === 0) {
          relation.from.fields.forEach((field) => {
            if (fieldType.get(field)?.nullable) {
              record[field] = null;
            }
          });
          return;
        }
        faker.seed(hashSeed(seed, key, index, 'reference', position));
        const parent = target.records.get(faker.helpers.arrayElement(candidates)) as WorldRecord;
        relation.from.fields.forEach((field, at) => {
          record[field] = parent[relation.to.fields[at]] ?? null;
        });
      });
      let id = rowKey(entity.primaryKey, record) ?? `${index + 1}`;
      if (building.records.has(id)) {
        const unique = uniqueKey(building, record, foreign, index);
        if (unique === undefined) {
          // Every column of the key is a reference and this combination exists: the row would break the key.
          continue;
        }
        id = unique;
      }
      building.ids.push(id);
      building.records.set(id, record);
    }
  }
  return new Map(
    [...built.values()].map(({ entity, ids, records }) => [
      `${service.name}/${entity.name}`,
      { ids, records, parentOf: new Map(), childrenOf: new Map() },
    ]),
  );
};

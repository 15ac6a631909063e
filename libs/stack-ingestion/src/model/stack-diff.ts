import { isDeepStrictEqual } from 'node:util';

import { OperationModel, StackModel } from '@libs/stack-model';

import { asRecord } from '../openapi/internal-reference';

export interface StackDiffEntry {
  change: 'added' | 'removed' | 'changed';
  kind: 'service' | 'operation' | 'schema' | 'entity';
  /** `service`, `service.operationId`, `service#/components/schemas/Name` or the entity name. */
  name: string;
}

const operationShape = (operation: OperationModel): Omit<OperationModel, 'pointer'> => {
  const { pointer: _pointer, ...shape } = operation;
  return shape;
};

const compareMaps = <T>(
  kind: StackDiffEntry['kind'],
  before: Map<string, T>,
  after: Map<string, T>,
  same: (a: T, b: T) => boolean,
): StackDiffEntry[] => {
  const entries: StackDiffEntry[] = [];
  for (const [name, value] of before) {
    const next = after.get(name);
    if (next === undefined) {
      entries.push({ change: 'removed', kind, name });
    } else if (!same(value, next)) {
      entries.push({ change: 'changed', kind, name });
    }
  }
  for (const name of after.keys()) {
    if (!before.has(name)) {
      entries.push({ change: 'added', kind, name });
    }
  }
  return entries;
};

const schemasOf = (document: Record<string, unknown>): Record<string, unknown> => ({
  ...asRecord(asRecord(document.components).schemas),
});

/** What changed between two versions of a stack: services, operations (by id), component schemas and entities. */
export const diffStacks = (before: StackModel, after: StackModel): StackDiffEntry[] => {
  const services = (model: StackModel) => new Map(model.services.map((s) => [s.name, s]));
  const beforeServices = services(before);
  const afterServices = services(after);
  const entries = compareMaps('service', beforeServices, afterServices, () => true);
  for (const [name, service] of beforeServices) {
    const next = afterServices.get(name);
    if (!next) {
      continue;
    }
    const operations = (s: typeof service) => new Map(s.operations.map((o) => [`${name}.${o.id}`, operationShape(o)]));
    entries.push(...compareMaps('operation', operations(service), operations(next), isDeepStrictEqual));
    const schemas = (s: typeof service) =>
      new Map(
        Object.entries(schemasOf(s.document)).map(([key, value]) => [`${name}#/components/schemas/${key}`, value]),
      );
    entries.push(...compareMaps('schema', schemas(service), schemas(next), isDeepStrictEqual));
  }
  const entities = (model: StackModel) => new Map(model.entities.map((e) => [e.name, e]));
  entries.push(...compareMaps('entity', entities(before), entities(after), isDeepStrictEqual));
  return entries;
};

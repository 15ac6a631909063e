import { getAtPointer } from '@libs/bundle-documents';
import type { PolicyNames } from '@libs/graders';
import { ServiceModel } from '@libs/stack-model';

import { asRecord, dereference } from '../openapi/internal-reference';
import { builtInPackSpecs } from '../packs/pack-specs';
import { PackVocabulary } from '../packs/pack-vocabulary';

type Tables = Map<string, Set<string>>;

/** Property names of a schema, through `$ref`s and `allOf`; empty when the schema does not say. */
const propertiesOf = (document: unknown, pointer: string, depth = 0): string[] => {
  const schema = asRecord(dereference(document, getAtPointer(document, pointer), pointer).value);
  const own = Object.keys(asRecord(schema.properties));
  const parts = Array.isArray(schema.allOf) && depth < 8 ? schema.allOf : [];
  return [
    ...own,
    ...parts.flatMap((part, i) => {
      const resolved = dereference(document, part, `${pointer}/allOf/${i}`);
      return propertiesOf(document, resolved.pointer, depth + 1);
    }),
  ];
};

const addTable = (tables: Tables, name: string, fields: Iterable<string>): void => {
  const known = tables.get(name) ?? new Set<string>();
  for (const field of fields) {
    known.add(field);
  }
  tables.set(name, known);
};

/**
 * A service's tables: its spec's resources (fields from their schemas), the data schemas' tables it serves (fields from
 * their row schemas) and, for a pack, the tables it seeds.
 */
const tablesOf = (service: ServiceModel, vocabulary: PackVocabulary | undefined): Tables => {
  const tables: Tables = new Map();
  for (const resource of service.resources) {
    addTable(
      tables,
      resource.name,
      resource.schemaPointer ? propertiesOf(service.document, resource.schemaPointer) : [],
    );
  }
  for (const [name, fields] of Object.entries(vocabulary?.tables ?? {})) {
    addTable(tables, name, fields);
  }
  // A data service's tables are its DDL's, each with the row schema its served document gives it.
  for (const name of service.tables ?? []) {
    const pointer = `/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    addTable(
      tables,
      name,
      getAtPointer(service.document, pointer) === undefined ? [] : propertiesOf(service.document, pointer),
    );
  }
  return tables;
};

/**
 * What a stack has for policy rules to name, besides the scenarios' values: the events its packs record, the
 * tables of every service (by service name, and by pack name for a pack's service) with their fields, and, when a pack
 * is a chat, the company's channels. Events are checked only when every pack of the stack ships its vocabulary.
 */
export const stackNames = (
  services: ServiceModel[],
  companyChannels: readonly string[],
  companyRoles: readonly string[] = [],
): Omit<PolicyNames, 'values'> => {
  const packs = services.flatMap((s) => (s.pack ? [{ service: s, pack: s.pack }] : []));
  const vocabularies = new Map(packs.map(({ pack }) => [pack, builtInPackSpecs().get(pack)?.vocabulary]));
  const tables = new Map<string, Tables>();
  for (const service of services) {
    const own = tablesOf(service, service.pack ? vocabularies.get(service.pack) : undefined);
    tables.set(service.name, own);
    if (service.pack) {
      tables.set(service.pack, own);
    }
  }
  const everyPackKnown = [...vocabularies.values()].every((v) => v !== undefined);
  return {
    packs: new Set(packs.map((p) => p.pack)),
    tables,
    channels: new Set([...vocabularies.values()].some((v) => v?.chat) ? companyChannels : []),
    ...(companyRoles.length > 0 ? { roles: new Set(companyRoles.map((r) => r.toLowerCase())) } : {}),
    ...(everyPackKnown
      ? {
          events: new Set([
            ...[...vocabularies.values()].flatMap((v) => v?.events ?? []),
            // The client's own services tell each record change as an event of their own (service-twin.ts).
            ...services
              .filter((s) => !s.pack)
              .flatMap((s) =>
                // A data twin's writes are record changes only (it has no resources): rules read its tables.
                s.resources.flatMap((r) =>
                  ['created', 'replaced', 'updated', 'deleted'].map((change) => `${s.name}.${r.name}.${change}`),
                ),
              ),
          ]),
        }
      : {}),
  };
};

import { SourceLocator, IngestionError, IngestionProblem } from '@libs/bundle-documents';
import { EntityModel, RelationModel, ServiceModel, canonicalName } from '@libs/stack-model';

import { manifestFile } from '../manifest/stack-manifest';

/**
 * Links data-schema entities to API resources: explicitly through `mappings` in mirror.yaml, else by name
 * (`suppliers` resource ↔ `supplier` table). Also infers relations from `<entity>_id` fields that no foreign key
 * declares, marked as inferred so reviewers can tell them apart.
 */
export const linkEntities = (
  entities: EntityModel[],
  relations: RelationModel[],
  services: ServiceModel[],
  mappings: Record<string, string> | undefined,
  locator: SourceLocator,
): RelationModel[] => {
  const problems: IngestionProblem[] = [];
  const entityByName = new Map(entities.map((e) => [e.name, e]));
  const resourceByQualifiedName = new Map<
    string,
    { service: ServiceModel; resource: ServiceModel['resources'][number] }
  >(
    services.flatMap((service) =>
      service.resources.map((resource) => [`${service.name}.${resource.name}`, { service, resource }] as const),
    ),
  );
  const mapped = new Set<string>();
  for (const [entityName, target] of Object.entries(mappings ?? {})) {
    const entity = entityByName.get(entityName);
    const found = resourceByQualifiedName.get(target);
    if (!entity) {
      problems.push(
        locator.problem(manifestFile, `/mappings/${entityName}`, `mapping names unknown entity "${entityName}"`),
      );
    } else if (!found) {
      problems.push(
        locator.problem(manifestFile, `/mappings/${entityName}`, `mapping names unknown resource "${target}"`),
      );
    } else {
      entity.resources.push(target);
      found.resource.entity = entity.name;
      mapped.add(entity.name);
    }
  }
  if (problems.length > 0) {
    throw new IngestionError('MANIFEST_INVALID', problems);
  }
  const byCanonical = new Map(entities.filter((e) => !mapped.has(e.name)).map((e) => [canonicalName(e.name), e]));
  for (const [qualified, { resource }] of resourceByQualifiedName) {
    if (resource.entity) {
      continue;
    }
    // A nested resource (`suppliers.contacts`) may be stored as `supplier_contacts`: try the qualified name too.
    const parts = resource.name.split('.');
    const leaf = parts[parts.length - 1];
    const parentLeaf = parts.length > 1 ? canonicalName(parts[parts.length - 2]) : undefined;
    const entity =
      byCanonical.get(canonicalName(leaf)) ??
      (parentLeaf ? byCanonical.get(canonicalName(`${parentLeaf}${leaf}`)) : undefined);
    if (entity) {
      entity.resources.push(qualified);
      resource.entity = entity.name;
    }
  }

  const inferred: RelationModel[] = [];
  const allByCanonical = new Map(entities.map((e) => [canonicalName(e.name), e]));
  const declared = new Set(relations.map((r) => `${r.from.entity}.${r.from.fields.join(',')}`));
  for (const entity of entities) {
    for (const field of entity.fields) {
      const match = /^(.+?)_?(id|Id|ID)$/.exec(field.name);
      if (!match || field.name === 'id' || declared.has(`${entity.name}.${field.name}`)) {
        continue;
      }
      const target = allByCanonical.get(canonicalName(match[1]));
      if (target && target !== entity) {
        inferred.push({
          from: { entity: entity.name, fields: [field.name] },
          to: { entity: target.name, fields: target.primaryKey },
          origin: 'inferred',
        });
      }
    }
  }
  return [...relations, ...inferred];
};

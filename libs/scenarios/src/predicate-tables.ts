import { getAtPointer } from '@libs/bundle-documents';
import { ServiceModel } from '@libs/stack-model';

type Schema = Record<string, unknown>;

/**
 * The top-level fields of a record schema: its properties, through local `$ref`s and `allOf`/`anyOf`/`oneOf`
 * branches; `null` when the schema leaves them open (no properties anywhere, or a reference that does not resolve).
 */
const fieldsOf = (document: unknown, schema: unknown, seen = new Set<string>()): Set<string> | null => {
  if (!schema || typeof schema !== 'object') {
    return null;
  }
  const node = schema as Schema;
  if (typeof node.$ref === 'string') {
    if (!node.$ref.startsWith('#') || seen.has(node.$ref)) {
      return null;
    }
    seen.add(node.$ref);
    return fieldsOf(document, getAtPointer(document, node.$ref.slice(1)), seen);
  }
  const fields = new Set(Object.keys((node.properties as Schema | undefined) ?? {}));
  let open = node.properties === undefined;
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const branch of (node[key] as unknown[] | undefined) ?? []) {
      const found = fieldsOf(document, branch, seen);
      if (found) {
        found.forEach((f) => fields.add(f));
        open = false;
      }
    }
  }
  return open ? null : fields;
};

/** A data service's tables (its DDL's), each with the columns its served document gives its rows. */
const dataTables = (service: ServiceModel): Record<string, readonly string[] | null> =>
  Object.fromEntries(
    (service.tables ?? []).map((table) => {
      const fields = fieldsOf(service.document, {
        $ref: `#/components/schemas/${table.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      });
      return [table, fields ? [...fields] : null];
    }),
  );

/**
 * The tables a predicate may read, as the twins key them: each service's resources (`erp` → `purchase-orders`) with
 * their records' fields, and a data service's tables. A pack's tables are those its spec describes as resources.
 */
export const predicateTables = (
  services: readonly ServiceModel[],
): Record<string, Record<string, readonly string[] | null>> =>
  Object.fromEntries(
    services.map((service) => [
      service.name,
      {
        ...Object.fromEntries(
          service.resources.map((resource) => {
            let fields: Set<string> | null = null;
            try {
              fields = resource.schemaPointer
                ? fieldsOf(service.document, getAtPointer(service.document, resource.schemaPointer))
                : null;
            } catch {
              fields = null;
            }
            return [resource.name, fields ? [...fields] : null];
          }),
        ),
        ...dataTables(service),
      },
    ]),
  );

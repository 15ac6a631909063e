import { SourceDialect } from '@libs/stack-model';

import { visitSchemas } from './schema-contexts';
import { DocumentFinding } from './structure-check';

/**
 * Warns about schema constructs that the vendor's tools accept but the declared dialect does not define. Mirror
 * reads them the way those tools do (a type array as a union, `nullable` as a null type), so ingestion goes on.
 */
export const lintSchemas = (document: unknown, dialect: SourceDialect): DocumentFinding[] => {
  const findings: DocumentFinding[] = [];
  visitSchemas(document, (schema, pointer) => {
    if (dialect !== 'openapi-3.1' && Array.isArray(schema.type)) {
      findings.push({
        severity: 'warning',
        pointer: `${pointer}/type`,
        message: `type arrays are not valid in ${dialect}; read as a union of ${schema.type.map(String).join(', ')}`,
      });
    }
    if (dialect === 'openapi-3.1' && schema.nullable !== undefined) {
      findings.push({
        severity: 'warning',
        pointer: `${pointer}/nullable`,
        message: '"nullable" is not part of OpenAPI 3.1; read as adding "null" to the type',
      });
    }
  });
  return findings;
};

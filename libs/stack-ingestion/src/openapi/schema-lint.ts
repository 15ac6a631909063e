import { appendPointer, getAtPointer } from '@libs/bundle-documents';
import { patternProblem, unenforceableKeyword } from '@libs/openapi-schemas';
import { SourceDialect } from '@libs/stack-model';

import { visitSchemas } from './schema-contexts';
import { DocumentFinding } from './structure-check';

/** Where a chain of `$ref`-only schemas ends up, or 'loop' when it comes back to where it has been. */
const referenceChainLoops = (document: unknown, start: string): boolean => {
  const seen = new Set<string>();
  let reference: unknown = start;
  while (typeof reference === 'string' && reference.startsWith('#')) {
    if (seen.has(reference)) {
      return true;
    }
    seen.add(reference);
    let target: unknown;
    try {
      target = getAtPointer(document, decodeURIComponent(reference.slice(1)));
    } catch {
      return false;
    }
    reference = target !== null && typeof target === 'object' ? (target as { $ref?: unknown }).$ref : undefined;
  }
  return false;
};

/**
 * Warns about schema constructs that the vendor's tools accept but the declared dialect does not define. Mirror
 * reads them the way those tools do (a type array as a union, `nullable` as a null type), so ingestion goes on.
 * Also proves, before any twin serves the spec, that every schema keyword can be enforced: what cannot (a pattern
 * RE2 cannot run, a bound no number meets, a `$ref` loop) is named here and left unenforced by the twin.
 */
export const lintSchemas = (document: unknown, dialect: SourceDialect): DocumentFinding[] => {
  const findings: DocumentFinding[] = [];
  const warn = (pointer: string, message: string): void => {
    findings.push({ severity: 'warning', pointer, message });
  };
  visitSchemas(document, (schema, pointer) => {
    if (dialect !== 'openapi-3.1' && Array.isArray(schema.type)) {
      warn(
        `${pointer}/type`,
        `type arrays are not valid in ${dialect}; read as a union of ${schema.type.map(String).join(', ')}`,
      );
    }
    if (dialect === 'openapi-3.1' && schema.nullable !== undefined) {
      warn(`${pointer}/nullable`, '"nullable" is not part of OpenAPI 3.1; read as adding "null" to the type');
    }
    if (typeof schema.$ref === 'string' && referenceChainLoops(document, schema.$ref)) {
      warn(`${pointer}/$ref`, `$ref "${schema.$ref}" loops through references alone; the twin does not validate it`);
      return;
    }
    for (const [key, value] of Object.entries(schema)) {
      const problem = unenforceableKeyword(key, value);
      if (problem) {
        warn(appendPointer(pointer, key), `${problem}; the twin does not enforce it`);
      }
    }
    if (typeof schema.pattern === 'string') {
      const problem = patternProblem(schema.pattern);
      if (problem) {
        warn(
          `${pointer}/pattern`,
          `pattern cannot run on the linear-time engine (${problem}); the twin does not enforce it`,
        );
      }
    }
    if (schema.patternProperties !== null && typeof schema.patternProperties === 'object') {
      for (const key of Object.keys(schema.patternProperties)) {
        const problem = patternProblem(key);
        if (problem) {
          warn(
            appendPointer(pointer, 'patternProperties', key),
            `pattern cannot run on the linear-time engine (${problem}); the twin does not enforce it`,
          );
        }
      }
    }
    if (Array.isArray(schema.required) && new Set(schema.required).size !== schema.required.length) {
      warn(`${pointer}/required`, '"required" names a property twice; read once');
    }
  });
  return findings;
};

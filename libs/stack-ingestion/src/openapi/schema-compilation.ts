import { Dialect, DocumentValidators } from '@libs/openapi-schemas';
import { OperationModel } from '@libs/stack-model';

import { DocumentFinding } from './structure-check';

/**
 * Compiles, at ingest, every schema the twin will compile when the operations are called (parameters, request
 * bodies, responses), so that a schema ajv refuses is a located warning now rather than a surprise at request time.
 * The twin meets the same failure with a validator that accepts everything; this says so where the user can fix it.
 */
export const compileOperationSchemas = (
  document: Record<string, unknown>,
  dialect: Dialect,
  operations: OperationModel[],
): DocumentFinding[] => {
  const validators = new DocumentValidators(document, dialect);
  const pointers = new Set<string>();
  for (const operation of operations) {
    for (const parameter of operation.parameters) {
      if (parameter.schemaPointer) {
        pointers.add(parameter.schemaPointer);
      }
    }
    for (const pointer of [
      ...Object.values(operation.requestBody?.content ?? {}),
      ...operation.responses.flatMap((response) => Object.values(response.content)),
    ]) {
      if (pointer) {
        pointers.add(pointer);
      }
    }
  }
  for (const pointer of pointers) {
    validators.validator(pointer);
  }
  return validators.failures.map((failure) => ({
    severity: 'warning',
    pointer: failure.pointer ?? '',
    message: failure.stillValidated
      ? `the schema's ${failure.message.replace(/^its /, '')}`
      : `the twin cannot compile this schema (${failure.message}); it does not validate it`,
  }));
};

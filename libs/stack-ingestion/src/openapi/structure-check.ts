import { appendPointer } from '@libs/bundle-documents';
import { httpMethods, SourceDialect } from '@libs/stack-model';

import { dereference } from './internal-reference';

export interface DocumentFinding {
  severity: 'error' | 'warning';
  pointer: string;
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const parameterLocations = new Set(['path', 'query', 'header', 'cookie', 'formData', 'body']);

/**
 * Checks the parts of a spec that Mirror must understand to build a twin. It refuses only what cannot be read
 * (wrong types, duplicate operation ids, no paths) and leaves style to linters: real specs are messy and the
 * vendor's own tools accept them.
 */
export const checkStructure = (document: Record<string, unknown>, dialect: SourceDialect): DocumentFinding[] => {
  const findings: DocumentFinding[] = [];
  const error = (pointer: string, message: string): void => {
    findings.push({ severity: 'error', pointer, message });
  };
  const warn = (pointer: string, message: string): void => {
    findings.push({ severity: 'warning', pointer, message });
  };

  if (!isObject(document.info)) {
    warn('/info', 'missing "info" object');
  }
  const paths = document.paths;
  if (paths === undefined) {
    if (dialect !== 'openapi-3.1') {
      error('', `missing required "paths" (${dialect} needs it; only OpenAPI 3.1 may describe webhooks alone)`);
    } else if (document.webhooks === undefined && document.components === undefined) {
      error('', 'document has none of "paths", "webhooks" or "components"');
    }
  } else if (!isObject(paths)) {
    error('/paths', `"paths" must be an object of path items, found ${describe(paths)}`);
  }

  const operationIds = new Map<string, string>();
  const checkPathItems = (container: unknown, containerPointer: string, kind: 'path' | 'webhook'): void => {
    if (!isObject(container)) {
      return;
    }
    for (const [key, rawItem] of Object.entries(container)) {
      const itemPointer = appendPointer(containerPointer, key);
      if (kind === 'path' && !key.startsWith('/')) {
        error(itemPointer, `path "${key}" must start with "/"`);
        continue;
      }
      if (kind === 'path' && key.includes('#')) {
        warn(itemPointer, `path "${key}" contains "#": served as a variant of ${key.slice(0, key.indexOf('#'))}`);
      }
      const item = dereference(document, rawItem, itemPointer).value;
      if (!isObject(item)) {
        error(itemPointer, `${kind} item must be an object, found ${describe(item)}`);
        continue;
      }
      checkParameters(item.parameters, appendPointer(itemPointer, 'parameters'));
      for (const method of httpMethods) {
        if (item[method] === undefined) {
          continue;
        }
        const operationPointer = appendPointer(itemPointer, method);
        const operation = item[method];
        if (!isObject(operation)) {
          error(operationPointer, `operation must be an object, found ${describe(operation)}`);
          continue;
        }
        checkParameters(operation.parameters, appendPointer(operationPointer, 'parameters'));
        if (operation.responses === undefined) {
          warn(operationPointer, 'operation declares no responses');
        } else if (!isObject(operation.responses)) {
          error(
            appendPointer(operationPointer, 'responses'),
            `"responses" must be an object, found ${describe(operation.responses)}`,
          );
        }
        if (operation.operationId !== undefined) {
          if (typeof operation.operationId !== 'string') {
            error(
              appendPointer(operationPointer, 'operationId'),
              `"operationId" must be a string, found ${describe(operation.operationId)}`,
            );
          } else {
            const first = operationIds.get(operation.operationId);
            if (first !== undefined) {
              error(
                appendPointer(operationPointer, 'operationId'),
                `duplicate operationId "${operation.operationId}" (first used at ${first})`,
              );
            } else {
              operationIds.set(operation.operationId, operationPointer);
            }
          }
        }
      }
    }
  };

  const checkParameters = (parameters: unknown, pointer: string): void => {
    if (parameters === undefined) {
      return;
    }
    if (!Array.isArray(parameters)) {
      error(pointer, `"parameters" must be an array, found ${describe(parameters)}`);
      return;
    }
    parameters.forEach((raw, index) => {
      const parameterPointer = appendPointer(pointer, index);
      const parameter = dereference(document, raw, parameterPointer).value;
      if (!isObject(parameter)) {
        error(parameterPointer, `parameter must be an object, found ${describe(parameter)}`);
      } else if (typeof parameter.name !== 'string') {
        error(parameterPointer, 'parameter has no "name"');
      } else if (typeof parameter.in !== 'string' || !parameterLocations.has(parameter.in)) {
        error(parameterPointer, `parameter "${parameter.name}" has an invalid "in": ${JSON.stringify(parameter.in)}`);
      }
    });
  };

  checkPathItems(paths, '/paths', 'path');
  if (document.webhooks !== undefined) {
    if (!isObject(document.webhooks)) {
      error('/webhooks', `"webhooks" must be an object, found ${describe(document.webhooks)}`);
    }
    checkPathItems(document.webhooks, '/webhooks', 'webhook');
  }
  return findings;
};

export const describe = (value: unknown): string => {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 60);
};

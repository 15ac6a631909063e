import {
  BundleFiles,
  bundleLimits,
  parseDocument,
  getAtPointer,
  SourceLocator,
  formatLocation,
  IngestionError,
} from '@libs/bundle-documents';
import { OperationModel, ServiceModel, SourceDialect, StackWarning } from '@libs/stack-model';

import { BundledDocument, originOf, ReferenceBundler } from '../references/reference-bundler';
import { asRecord, dereference } from './internal-reference';
import { extractErrorShapes, extractOperations, extractSecuritySchemes, extractWebhooks } from './operation-extraction';
import { detectOperationPagination } from './pagination-detection';
import { inferResources } from './resource-inference';
import { compileOperationSchemas } from './schema-compilation';
import { lintSchemas } from './schema-lint';
import { checkStructure, DocumentFinding, describe } from './structure-check';
import { convertSwagger } from './swagger-conversion';

export interface ServiceSource {
  name: string;
  /** Bundle-relative path of the spec's entry file. */
  entry: string;
}

export interface LoadedService {
  service: ServiceModel;
  warnings: StackWarning[];
  /** Files the spec spans (entry first) and references followed: what ingestion reports and benchmarks. */
  files: string[];
  referenceCount: number;
}

/** Warnings of one kind beyond this are summarised: a spec with 3,000 type arrays needs one message, not 3,000. */
const warningsPerKind = 20;

const detectDialect = (entry: string, root: unknown): SourceDialect => {
  const document = asRecord(root);
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw IngestionError.single('SPECIFICATION_INVALID', {
      file: entry,
      line: 1,
      pointer: '',
      message: `expected an OpenAPI or Swagger document (an object), found ${describe(root)}`,
    });
  }
  if (typeof document.openapi === 'string') {
    if (/^3\.0\.\d+/.test(document.openapi)) {
      return 'openapi-3.0';
    }
    if (/^3\.[12]\.\d+/.test(document.openapi)) {
      return 'openapi-3.1';
    }
  }
  if (document.swagger === '2.0' || document.swagger === 2) {
    return 'swagger-2.0';
  }
  const field = document.openapi !== undefined ? 'openapi' : document.swagger !== undefined ? 'swagger' : undefined;
  throw IngestionError.single('SPECIFICATION_INVALID', {
    file: entry,
    line: 1,
    pointer: field ? `/${field}` : '',
    message: field
      ? `unsupported version ${JSON.stringify(document[field])}: Mirror reads OpenAPI 3.0, 3.1 and Swagger 2.0`
      : 'not an OpenAPI or Swagger document: no "openapi" or "swagger" field',
  });
};

/** Turns problems found in the bundled document into problems located in the user's own files. */
const locateFindings = (
  findings: DocumentFinding[],
  bundled: BundledDocument,
  locator: SourceLocator,
): { errors: IngestionError | undefined; warnings: StackWarning[] } => {
  const errors = findings.filter((f) => f.severity === 'error').slice(0, bundleLimits.maxProblems);
  const warnings: StackWarning[] = [];
  const perKind = new Map<string, number>();
  for (const finding of findings.filter((f) => f.severity === 'warning')) {
    const kind = finding.message.replace(/"[^"]*"|\d+/g, '');
    const seen = (perKind.get(kind) ?? 0) + 1;
    perKind.set(kind, seen);
    if (seen <= warningsPerKind) {
      const origin = originOf(bundled, finding.pointer);
      const location = locator.locate(origin.file, origin.pointer);
      warnings.push({ location: formatLocation(location), ...location, message: finding.message });
    }
  }
  for (const [kind, seen] of perKind) {
    if (seen > warningsPerKind) {
      const entry = bundled.files[0] ?? '';
      warnings.push({
        location: entry,
        file: entry,
        pointer: '',
        message: `${seen - warningsPerKind} more warnings like the above: ${kind.trim()}`,
      });
    }
  }
  return {
    errors:
      errors.length > 0
        ? new IngestionError(
            'SPECIFICATION_INVALID',
            errors.map((finding) => {
              const origin = originOf(bundled, finding.pointer);
              return locator.problem(origin.file, origin.pointer, finding.message);
            }),
          )
        : undefined,
    warnings,
  };
};

const successResponseSchema = (operation: OperationModel): string | undefined => {
  const success = operation.responses.find((r) => /^2\d\d$/.test(r.status));
  const pointer = success ? Object.values(success.content).find((p) => p !== null) : undefined;
  return pointer ?? undefined;
};

const responseHeadersOf = (document: Record<string, unknown>, operation: OperationModel): string[] => {
  const responses = asRecord(asRecord(getAtPointer(document, operation.pointer)).responses);
  return Object.entries(responses)
    .filter(([status]) => /^2/.test(status))
    .flatMap(([, raw]) => Object.keys(asRecord(asRecord(dereference(document, raw, '').value).headers)));
};

/**
 * Reads one service's spec: parses the entry, bundles its references, checks it, converts Swagger 2.0, and
 * extracts operations, resources, webhooks, auth and error shapes.
 */
export const loadService = async (
  files: BundleFiles,
  locator: SourceLocator,
  source: ServiceSource,
  confined: boolean,
  outsideHint?: string,
  lenient = false,
): Promise<LoadedService> => {
  const root = parseDocument(source.entry, files.read(source.entry));
  const dialect = detectDialect(source.entry, root);
  const bundled = new ReferenceBundler(files, locator, {
    schemaSection: dialect === 'swagger-2.0' ? 'definitions' : 'components',
    confined,
    outsideHint,
    lenient,
  }).bundle(source.entry);

  const located = locateFindings(
    [...checkStructure(bundled.document, dialect), ...lintSchemas(bundled.document, dialect)],
    bundled,
    locator,
  );
  if (located.errors) {
    throw located.errors;
  }
  const document = dialect === 'swagger-2.0' ? await convertSwagger(source.entry, bundled.document) : bundled.document;
  const operations = extractOperations(document);
  const uncompilable = locateFindings(compileOperationSchemas(document, dialect, operations), bundled, locator);
  const resources = inferResources({
    operations,
    paginationOf: (operation) => detectOperationPagination(document, operation, responseHeadersOf(document, operation)),
    recordSchemaOf: successResponseSchema,
  });
  const info = asRecord(document.info);
  const servers = Array.isArray(document.servers)
    ? document.servers
        .map((server) => asRecord(server).url)
        .filter((url): url is string => typeof url === 'string' && url !== '')
    : [];
  return {
    service: {
      name: source.name,
      title: typeof info.title === 'string' ? info.title : source.name,
      // YAML reads `version: 1.0` as a number; the spec means the string.
      apiVersion: typeof info.version === 'string' || typeof info.version === 'number' ? String(info.version) : '',
      dialect,
      sourceFile: source.entry,
      servers,
      operations,
      resources,
      webhooks: extractWebhooks(document),
      securitySchemes: extractSecuritySchemes(document),
      errorShapes: extractErrorShapes(operations),
      document,
    },
    warnings: [
      ...bundled.outside.map(({ file, from, pointer }) => {
        const location = locator.locate(from, pointer);
        return {
          location: formatLocation(location),
          ...location,
          message: `read ${file}, outside the spec's folder (--allow-outside-refs)`,
        };
      }),
      ...bundled.degraded.map(({ file, pointer, message }) => {
        const location = locator.locate(file, pointer);
        return { location: formatLocation(location), ...location, message };
      }),
      ...located.warnings,
      ...uncompilable.warnings,
    ],
    files: bundled.files,
    referenceCount: bundled.referenceCount,
  };
};

import { formatLocation, IngestionError, IngestionProblem } from '@libs/bundle-documents';
import { StackModel } from '@libs/stack-model';

export interface StackIdentity {
  /** Stored stack id; null when the model was not stored. */
  id: string | null;
  version: string;
}

/**
 * The public shape of an ingested stack, shared by `mirror ingest --json` and `POST /v1/stacks`: everything a user
 * checks after an ingest, without the bundled documents (which can be megabytes).
 */
export const summarizeStack = (model: StackModel, identity: StackIdentity) => ({
  stack: {
    id: identity.id,
    name: model.name,
    version: identity.version,
    services: model.services.map((service) => ({
      name: service.name,
      title: service.title,
      apiVersion: service.apiVersion,
      dialect: service.dialect,
      sourceFile: service.sourceFile,
      servers: service.servers,
      operations: service.operations.map(({ id, method, path }) => ({ id, method, path })),
      resources: service.resources.map(
        ({ name, collectionPath, itemPath, idParameter, parent, pagination, entity, operations }) => ({
          name,
          collectionPath,
          itemPath: itemPath ?? null,
          idParameter: idParameter ?? null,
          parent: parent ?? null,
          pagination,
          entity: entity ?? null,
          operations,
        }),
      ),
      webhooks: service.webhooks,
      securitySchemes: service.securitySchemes,
      errorShapes: service.errorShapes,
    })),
    entities: model.entities.map(({ name, source, primaryKey, uniqueKeys, fields, resources }) => ({
      name,
      source,
      primaryKey,
      ...(uniqueKeys ? { uniqueKeys } : {}),
      fields: fields.map((f) => f.name),
      resources,
    })),
    relations: model.relations,
    samples: model.samples.map(({ target, file, records, fields }) => ({
      target,
      file,
      records,
      fields: Object.keys(fields).length,
    })),
    scenarios: (model.scenarios ?? []).map(({ file, scenario }) => ({
      id: scenario.id,
      title: scenario.title,
      file,
      parties: Object.keys(scenario.parties),
      variables: Object.keys(scenario.variables),
    })),
    warnings: model.warnings,
  },
});

export type StackSummary = ReturnType<typeof summarizeStack>;

/** The error body of the CLI (`--json`) and the API: every problem, located. */
export const summarizeErrors = (
  error: IngestionError,
): { code: string; errors: (IngestionProblem & { location: string })[] } => ({
  code: error.code,
  errors: error.problems.map((p) => ({
    /** `file:line#pointer`, as the human output prints it and an editor jumps to it. */
    location: formatLocation(p),
    file: p.file,
    ...(p.line !== undefined ? { line: p.line } : {}),
    pointer: p.pointer,
    message: p.message,
  })),
});

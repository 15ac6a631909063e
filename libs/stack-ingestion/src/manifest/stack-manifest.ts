import { z } from 'zod';

import {
  BundleFiles,
  parseDocument,
  schemaProblems,
  SourceLocator,
  IngestionError,
  IngestionProblem,
} from '@libs/bundle-documents';
import { companyProblems, companySectionSchema, serviceBehavioursSchema } from '@libs/stack-model';

import { builtInPackSpecs } from '../packs/pack-specs';

export const manifestFile = 'mirror.yaml';

const serviceName = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, starting with a letter');

/** `mirror.yaml`: names the services of a stack and where its specs, data schemas and mappings are. */
export const stackManifestSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    services: z
      .array(
        z
          .object({
            name: serviceName,
            /** The service's own spec, in the bundle. */
            spec: z.string().min(1).optional(),
            /** Or a built-in twin pack (`twins/<pack>`), whose spec and behaviour ship with Mirror. */
            pack: z.string().min(1).optional(),
            /**
             * Or data schemas (SQL DDL, JSON Schema) in the bundle whose tables this service serves the way PostgREST
             * serves a database: `GET /patients?id=eq.7`.
             */
            schema: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
            baseUrl: z.string().url().optional(),
            /** What the service's twin does beyond CRUD: state machines, side effects, derived fields. */
            behaviours: serviceBehavioursSchema.optional(),
          })
          .strict()
          .refine(
            (service) => [service.spec, service.pack, service.schema].filter((v) => v !== undefined).length === 1,
            {
              message:
                'give one of "spec" (a file in the bundle), "pack" (a built-in twin) or "schema" (data schemas to serve as tables)',
            },
          ),
      )
      .min(1, 'a stack needs at least one service'),
    schemas: z.array(z.string().min(1)).optional(),
    /** Entity name → `service.resource` it backs, when names alone do not link them. */
    mappings: z
      .record(z.string(), z.string().regex(/^[a-z][a-z0-9-]*\.[^.].*$/, 'must be "service.resource"'))
      .optional(),
    samples: z.array(z.string()).optional(),
    policies: z.array(z.string()).optional(),
    scenarios: z.array(z.string()).optional(),
    /** The client's company the packs serve; generated from the world seed where left out. */
    company: companySectionSchema.optional(),
  })
  .strict();

export type StackManifest = z.infer<typeof stackManifestSchema>;

/** Reads and validates `mirror.yaml`; every problem is reported with its line, all at once. */
export const readManifest = (files: BundleFiles, locator: SourceLocator): StackManifest => {
  const raw = parseDocument(manifestFile, files.read(manifestFile));
  const parsed = stackManifestSchema.safeParse(raw);
  const problems: IngestionProblem[] = [];
  if (!parsed.success) {
    for (const { pointer, message } of schemaProblems(parsed.error.issues)) {
      problems.push(locator.problem(manifestFile, pointer, message));
    }
    throw new IngestionError('MANIFEST_INVALID', problems);
  }
  const manifest = parsed.data;
  const seen = new Set<string>();
  manifest.services.forEach((service, index) => {
    if (seen.has(service.name)) {
      problems.push(
        locator.problem(manifestFile, `/services/${index}/name`, `duplicate service name "${service.name}"`),
      );
    }
    seen.add(service.name);
    if (service.spec !== undefined && !files.has(service.spec)) {
      problems.push(
        locator.problem(manifestFile, `/services/${index}/spec`, `spec file "${service.spec}" is not in the bundle`),
      );
    }
    dataSchemaFiles(service).forEach((schema, position) => {
      if (!files.has(schema)) {
        const pointer = Array.isArray(service.schema)
          ? `/services/${index}/schema/${position}`
          : `/services/${index}/schema`;
        problems.push(locator.problem(manifestFile, pointer, `schema file "${schema}" is not in the bundle`));
      }
    });
    const packs = builtInPackSpecs();
    if (service.pack !== undefined && !packs.has(service.pack)) {
      problems.push(
        locator.problem(
          manifestFile,
          `/services/${index}/pack`,
          `no built-in twin pack "${service.pack}"; the packs are ${[...packs.keys()].join(', ') || 'not installed'}`,
        ),
      );
    }
  });
  (manifest.samples ?? []).forEach((sample, index) => {
    if (!files.has(sample)) {
      problems.push(locator.problem(manifestFile, `/samples/${index}`, `sample file "${sample}" is not in the bundle`));
    }
  });
  (manifest.schemas ?? []).forEach((schema, index) => {
    if (!files.has(schema)) {
      problems.push(locator.problem(manifestFile, `/schemas/${index}`, `schema file "${schema}" is not in the bundle`));
    }
  });
  for (const { pointer, message } of manifest.company ? companyProblems(manifest.company) : []) {
    problems.push(locator.problem(manifestFile, pointer, message));
  }
  if (problems.length > 0) {
    throw new IngestionError('MANIFEST_INVALID', problems);
  }
  return manifest;
};

/** The data schema files a service serves as tables (none unless it is a data service). */
export const dataSchemaFiles = (service: StackManifest['services'][number]): string[] =>
  service.schema === undefined ? [] : Array.isArray(service.schema) ? service.schema : [service.schema];

const specSniff = /^\s*["']?(openapi|swagger)["']?\s*:/m;

/**
 * A folder without `mirror.yaml` is still a bundle: its specs are the files that declare `openapi` or `swagger` at
 * the top level, and its data schemas are the `.sql` files and JSON Schemas under `schemas/`.
 */
export const discoverManifest = (files: BundleFiles, name: string): StackManifest => {
  const all = files.list();
  const specs = all.filter((file) => {
    if (!/\.(ya?ml|json)$/i.test(file) || file.startsWith('schemas/')) {
      return false;
    }
    const head = files.read(file).subarray(0, 4096).toString('utf8');
    return /^\s*\{/.test(head) ? /"(openapi|swagger)"\s*:/.test(head) : specSniff.test(head);
  });
  if (specs.length === 0) {
    throw IngestionError.single('MANIFEST_INVALID', {
      file: manifestFile,
      pointer: '',
      message: `no ${manifestFile} and no OpenAPI or Swagger file found in ${files.description}`,
    });
  }
  const used = new Set<string>();
  const services = specs.map((spec) => {
    const base = serviceNameFromFile(spec);
    let candidate = base;
    for (let n = 2; used.has(candidate); n++) {
      candidate = `${base}-${n}`;
    }
    used.add(candidate);
    return { name: candidate, spec };
  });
  const schemas = all.filter((file) => /^schemas\/.*\.(json|sql)$/i.test(file) || /\.sql$/i.test(file));
  return { name, services, ...(schemas.length > 0 ? { schemas } : {}) };
};

export const serviceNameFromFile = (file: string): string =>
  (file.split('/').pop() ?? file)
    .replace(/\.[^.]+$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '') || 'service';

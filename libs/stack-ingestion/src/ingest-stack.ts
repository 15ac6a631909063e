import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  BundleFiles,
  DirectoryBundle,
  formatBytes,
  MemoryBundle,
  bundleLimits,
  SourceLocator,
  IngestionError,
  IngestionProblem,
  parseDocument,
} from '@libs/bundle-documents';
import { ServiceModel, StackModel, stackModelFormat, StackWarning } from '@libs/stack-model';
import { checkPolicyReferences, checkTrapCatches, policyFiles, readPolicies } from '@libs/graders';
import { readScenarios, scenarioFiles } from '@libs/scenarios';
import { synthesizeCompany } from '@libs/synthetic-data';

import { detectArchiveKind, extractArchive } from './bundle/archive-extractor';
import { dataService } from './data-schemas/data-service';
import { linkEntities } from './data-schemas/entity-linking';
import { readJsonSchemaEntities } from './data-schemas/json-schema-entities';
import { readSqlEntities } from './data-schemas/sql-ddl-entities';
import {
  dataSchemaFiles,
  discoverManifest,
  manifestFile,
  readManifest,
  serviceNameFromFile,
  StackManifest,
} from './manifest/stack-manifest';
import { loadService } from './openapi/service-loader';
import { peopleResourceProblems } from './manifest/people-resources';
import { redactServiceTexts } from './model/spec-text-redaction';
import { behaviourProblems } from './manifest/behaviour-checks';
import { stackNames } from './policies/stack-names';
import { builtInPackSpecs, PackSpec } from './packs/pack-specs';
import { readSamples } from './samples/sample-reader';

/** What can be ingested: a folder, a spec file or an archive on disk, or the bytes of an upload. */
export type StackInput =
  /**
   * `allowOutsideRefs`: a lone spec file's `$ref`s may reach JSON or YAML files outside its folder, each named in a
   * warning. Only a person on their own machine can ask for it; uploads are always confined. `lenient`: a `$ref`
   * that resolves to nothing on an optional part is degraded with a warning instead of refusing the bundle.
   */
  | { kind: 'path'; path: string; allowOutsideRefs?: boolean; lenient?: boolean }
  /**
   * `unnamed`: the uploader gave no file name and `name` is a stand-in. The stack is then named by the bundle's
   * manifest or the spec's `info.title`, never by the stand-in, so unrelated uploads do not become versions of one
   * stack called "openapi".
   */
  | { kind: 'upload'; name: string; content: Buffer; unnamed?: boolean };

export interface IngestionStats {
  files: number;
  references: number;
  milliseconds: number;
}

export interface IngestedStack {
  model: StackModel;
  /** sha256 of the model: equal bundles give equal versions, so re-ingesting is idempotent. */
  version: string;
  stats: IngestionStats;
}

interface OpenedBundle {
  files: BundleFiles;
  manifest: StackManifest;
  /** False only for a lone spec file whose user allowed references outside its folder. */
  confined: boolean;
  outsideHint?: string;
}

const singleSpecManifest = (file: string): StackManifest => ({
  name: serviceNameFromFile(file),
  services: [{ name: serviceNameFromFile(file), spec: file }],
  samples: [],
});

/** A stack name from a spec's `info.title`, in the form file-derived names take; undefined when it has none. */
const titleName = (document: unknown): string | undefined => {
  const title = (document as { info?: { title?: unknown } } | null)?.info?.title;
  return typeof title === 'string' && /[a-z]/i.test(title) ? serviceNameFromFile(`${title}.x`) : undefined;
};

const unnamedUpload = (file: string, why: string): IngestionError =>
  IngestionError.single('MANIFEST_INVALID', {
    file,
    pointer: '',
    message: `an upload without a file name is named by its content, and ${why}: send it with ?filename=<name>`,
  });

const openBundle = async (input: StackInput): Promise<OpenedBundle> => {
  if (input.kind === 'upload') {
    if (input.content.length > bundleLimits.maxTotalBytes) {
      throw IngestionError.single('BUNDLE_TOO_LARGE', {
        file: input.name,
        pointer: '',
        message: `upload is ${formatBytes(input.content.length)}; the limit is ${formatBytes(bundleLimits.maxTotalBytes)}`,
      });
    }
    if (detectArchiveKind(input.content)) {
      const files = await extractArchive(input.name, input.content);
      if (input.unnamed && !files.has(manifestFile)) {
        throw unnamedUpload(input.name, `the archive has no ${manifestFile} to name the stack`);
      }
      return withManifest(files, path.parse(input.name).name, true);
    }
    if (input.content.length > bundleLimits.maxFileBytes) {
      throw IngestionError.single('BUNDLE_TOO_LARGE', {
        file: input.name,
        pointer: '',
        message: `file is ${formatBytes(input.content.length)}; the limit is ${formatBytes(bundleLimits.maxFileBytes)}`,
      });
    }
    const files = new MemoryBundle(input.name, new Map([[input.name, input.content]]));
    const manifest = singleSpecManifest(input.name);
    if (input.unnamed) {
      const name = titleName(parseDocument(input.name, input.content));
      if (name === undefined) {
        throw unnamedUpload(input.name, 'the spec has no info.title to name the stack');
      }
      manifest.name = name;
      manifest.services[0].name = name;
    }
    return { files, manifest, confined: true };
  }
  const absolute = path.resolve(input.path);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    throw IngestionError.single('BUNDLE_NOT_FOUND', {
      file: input.path,
      pointer: '',
      message: 'no such file or folder',
    });
  }
  if (stat.isDirectory()) {
    return withManifest(new DirectoryBundle(absolute, true), path.basename(absolute), true);
  }
  if (!stat.isFile()) {
    // Opening a FIFO blocks until a writer comes, and a device never ends: neither is read at all.
    throw IngestionError.single('BUNDLE_NOT_FOUND', {
      file: input.path,
      pointer: '',
      message: 'not a regular file or folder (a pipe, socket or device is never read)',
    });
  }
  if (stat.size > bundleLimits.maxTotalBytes) {
    throw IngestionError.single('BUNDLE_TOO_LARGE', {
      file: input.path,
      pointer: '',
      message: `file is ${formatBytes(stat.size)}; the limit is ${formatBytes(bundleLimits.maxFileBytes)}`,
    });
  }
  const head = Buffer.alloc(512);
  const fd = fs.openSync(absolute, 'r');
  fs.readSync(fd, head, 0, 512, 0);
  fs.closeSync(fd);
  if (detectArchiveKind(head)) {
    const name = path.basename(absolute);
    return withManifest(
      await extractArchive(name, fs.readFileSync(absolute)),
      name.replace(/\.(zip|tar|tgz|tar\.gz)$/i, ''),
      true,
    );
  }
  // A lone spec's folder is its bundle: a third-party spec must not pull /etc/passwd or a key file into the model.
  const confined = input.allowOutsideRefs !== true;
  const files = new DirectoryBundle(path.dirname(absolute), confined);
  return {
    files,
    manifest: singleSpecManifest(path.basename(absolute)),
    confined,
    outsideHint: "the spec file's folder; --allow-outside-refs (mirror ingest, mirror serve) reads further",
  };
};

const withManifest = (files: BundleFiles, fallbackName: string, confined: boolean): OpenedBundle => {
  const manifest = files.has(manifestFile)
    ? readManifest(files, new SourceLocator(files))
    : discoverManifest(files, serviceNameFromFile(fallbackName));
  return { files, manifest, confined };
};

/** A built-in pack's spec, read from its own folder (references stay inside it) and marked as that pack's. */
const loadPackService = async (name: string, pack: string): ReturnType<typeof loadService> => {
  const spec = builtInPackSpecs().get(pack) as PackSpec;
  const files = new DirectoryBundle(spec.folder, true);
  const loaded = await loadService(files, new SourceLocator(files), { name, entry: spec.entry }, true);
  loaded.service.pack = pack;
  return loaded;
};

const contentVersion = (model: StackModel): string => createHash('sha256').update(JSON.stringify(model)).digest('hex');

/**
 * Ingests a stack bundle into a StackModel. All-or-nothing: any problem throws an IngestionError listing every
 * located problem found, and nothing is returned to be stored.
 */
export const ingestStack = async (input: StackInput): Promise<IngestedStack> => {
  const started = performance.now();
  const { files, manifest, confined, outsideHint } = await openBundle(input);
  const locator = new SourceLocator(files);
  const services: ServiceModel[] = [];
  const warnings: StackWarning[] = [];
  const problems: IngestionProblem[] = [];
  let code: IngestionError['code'] | undefined;
  let fileCount = 0;
  let references = 0;
  for (const source of manifest.services) {
    if (source.schema !== undefined) {
      // Served from the entities, once the data schemas are read.
      continue;
    }
    try {
      const loaded = source.pack
        ? await loadPackService(source.name, source.pack)
        : await loadService(
            files,
            locator,
            { name: source.name, entry: source.spec as string },
            confined,
            outsideHint,
            input.kind === 'path' && input.lenient === true,
          );
      if (source.behaviours) {
        loaded.service.behaviours = source.behaviours;
      }
      if (source.baseUrl) {
        loaded.service.servers = [source.baseUrl, ...loaded.service.servers.filter((s) => s !== source.baseUrl)];
      }
      services.push(loaded.service);
      // A built-in pack's spec is ours, not the client's: its warnings are for Mirror's developers (pack-specs.spec.ts
      // counts them), and would bury the client's own under lines they cannot act on.
      if (!source.pack) {
        warnings.push(...loaded.warnings, ...redactServiceTexts(loaded.service));
      }
      fileCount += loaded.files.length;
      references += loaded.referenceCount;
    } catch (error) {
      if (!(error instanceof IngestionError)) {
        throw error;
      }
      code ??= error.code;
      problems.push(...error.problems);
    }
  }
  if (code) {
    throw new IngestionError(code, problems);
  }

  const schemaFiles = [
    ...new Set([...(manifest.schemas ?? []), ...manifest.services.flatMap((service) => dataSchemaFiles(service))]),
  ];
  const json = readJsonSchemaEntities(
    files,
    locator,
    schemaFiles.filter((f) => !/\.sql$/i.test(f)),
  );
  const sql = readSqlEntities(
    files,
    schemaFiles.filter((f) => /\.sql$/i.test(f)),
  );
  warnings.push(...sql.warnings);
  const entities = [...json.entities, ...sql.entities];
  manifest.services.forEach((source, index) => {
    if (source.schema === undefined) {
      return;
    }
    const served = dataService(source.name, dataSchemaFiles(source), entities, source.baseUrl);
    if (served.tables?.length === 0) {
      problems.push(
        locator.problem(manifestFile, `/services/${index}/schema`, 'these data schemas declare no table to serve'),
      );
    }
    // In the manifest's order, so service lists read as the bundle wrote them.
    services.splice(index, 0, served);
  });
  problems.push(...peopleResourceProblems(manifest, services, locator));
  problems.push(...behaviourProblems(manifest, services, locator));
  if (problems.length > 0) {
    throw new IngestionError('MANIFEST_INVALID', problems);
  }
  const relations = linkEntities(entities, [...json.relations, ...sql.relations], services, manifest.mappings, locator);

  const sampleFiles = manifest.samples ?? files.list().filter((file) => /^samples\/.+\.(json|csv|har)$/i.test(file));
  const samples = readSamples(
    files,
    sampleFiles,
    services,
    entities.map((e) => e.name),
  );

  const policyPaths = policyFiles(files, manifest.policies);
  const policies = readPolicies(files, locator, policyPaths);
  const scenarioPaths = scenarioFiles(files, manifest.scenarios);
  // The company's channels do not depend on the seed: its declared ones, #general, #random and one per department.
  const company = synthesizeCompany(0, undefined, manifest.company);
  const channels = company.channels.map((c) => c.name);
  // Roles and departments do not depend on the seed either: an approval rule may ask for any of them.
  const roles = [...new Set(company.employees.flatMap((e) => [e.role, e.department]))];
  const names = stackNames(services, channels, roles);
  const scenarios = readScenarios(files, locator, scenarioPaths, services, manifest.company, names.events);
  checkPolicyReferences(policies, scenarios, names, locator);
  checkTrapCatches(policies, scenarios, locator);

  const model: StackModel = {
    format: stackModelFormat,
    name: manifest.name,
    services,
    entities,
    relations,
    samples,
    scenarios,
    ...(policies.length > 0 ? { policies } : {}),
    ...(manifest.company ? { company: manifest.company } : {}),
    warnings,
  };
  return {
    model,
    version: contentVersion(model),
    stats: {
      files: fileCount + schemaFiles.length + sampleFiles.length + scenarioPaths.length + policyPaths.length,
      references,
      milliseconds: performance.now() - started,
    },
  };
};

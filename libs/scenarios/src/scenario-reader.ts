import { BundleFiles, parseDocument, SourceLocator, IngestionError, IngestionProblem } from '@libs/bundle-documents';
import { CompanyDeclaration, ScenarioModel, serviceRoutes, ServiceModel } from '@libs/stack-model';

import { validateScenario } from './scenario-validation';
import { predicateTables } from './predicate-tables';

/** The bundle's scenario files: those `mirror.yaml` lists, else every YAML or JSON file under `scenarios/`. */
export const scenarioFiles = (files: BundleFiles, listed: string[] | undefined): string[] =>
  listed ?? files.list().filter((file) => /^scenarios\/.+\.(ya?ml|json)$/i.test(file));

/**
 * Reads and checks every scenario against the stack it ships with: its shape, names, references to services and
 * files, and its task instances. All problems of all files come back at once, located by line and pointer, so a
 * broken scenario is refused at ingest, before any episode could start.
 */
export const readScenarios = (
  files: BundleFiles,
  locator: SourceLocator,
  paths: string[],
  services: ServiceModel[],
  company: CompanyDeclaration | undefined,
  /** The domain events the stack's twins record, when known: a party reacting to any other could never act. */
  events?: ReadonlySet<string>,
): ScenarioModel[] => {
  const problems: IngestionProblem[] = [];
  const scenarios: ScenarioModel[] = [];
  const context = {
    services: services.map((s) => s.name),
    files: new Set(files.list()),
    tables: predicateTables(services),
    // Packs tell their own events; the client's own services tell each record change (`helpdesk.refunds.created`).
    packs: services.filter((s) => s.pack).map((s) => s.name),
    packKinds: Object.fromEntries(services.flatMap((s) => (s.pack ? [[s.name, s.pack]] : []))),
    ...(events ? { events } : {}),
    company,
    operations: Object.fromEntries(services.map((s) => [s.name, serviceRoutes(s)])),
  };
  const ids = new Map<string, string>();
  for (const file of paths) {
    if (!files.has(file)) {
      problems.push(locator.problem(file, '', 'scenario file is not in the bundle'));
      continue;
    }
    const { scenario, problems: found } = validateScenario(parseDocument(file, files.read(file)), context);
    problems.push(...found.map((p) => locator.problem(file, p.pointer, p.message)));
    if (scenario) {
      const other = ids.get(scenario.id);
      if (other) {
        problems.push(locator.problem(file, '/id', `scenario id "${scenario.id}" is also used by ${other}`));
      }
      ids.set(scenario.id, file);
      scenarios.push({ file, scenario });
    }
  }
  if (problems.length > 0) {
    throw new IngestionError('SCENARIO_INVALID', problems);
  }
  return scenarios;
};

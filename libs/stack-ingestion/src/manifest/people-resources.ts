import { IngestionProblem, SourceLocator } from '@libs/bundle-documents';
import { resourceShapes } from '@libs/openapi-schemas';
import type { ServiceModel } from '@libs/stack-model';
import { personFields } from '@libs/synthetic-data';

import { manifestFile, StackManifest } from './stack-manifest';

/**
 * Each `company.people_in` entry must name a resource of one of the stack's own specs whose records can hold a person:
 * a field for the address and one for the name, found by the heuristic or named in the entry. Otherwise the
 * declaration would silently leave outsiders where the bundle meant employees.
 */
export const peopleResourceProblems = (
  manifest: StackManifest,
  services: ServiceModel[],
  locator: SourceLocator,
): IngestionProblem[] =>
  (manifest.company?.people_in ?? []).flatMap((entry, index) => {
    const declared = typeof entry === 'string' ? { resource: entry } : entry;
    const pointer = typeof entry === 'string' ? `/company/people_in/${index}` : `/company/people_in/${index}/resource`;
    const at = (message: string, where = pointer): IngestionProblem[] => [
      locator.problem(manifestFile, where, message),
    ];
    const [serviceName, ...rest] = declared.resource.split('.');
    const resourceName = rest.join('.');
    const service = services.find((s) => s.name === serviceName);
    if (!service) {
      return at(`no service "${serviceName}"; the services are ${services.map((s) => s.name).join(', ')}`);
    }
    if (service.pack !== undefined || service.tables !== undefined) {
      return at(`"${serviceName}" is not a service of the stack's own specs; its people are the company's already`);
    }
    const shape = resourceShapes(service).find((s) => s.resource.name === resourceName);
    if (!shape) {
      return at(
        `"${serviceName}" has no resource "${resourceName}"; its resources are ${service.resources.map((r) => r.name).join(', ')}`,
      );
    }
    const properties = Object.keys(shape.record.properties ?? {});
    for (const field of ['email', 'name'] as const) {
      const named = typeof entry === 'string' ? undefined : entry[field];
      if (named !== undefined && !properties.includes(named)) {
        return at(
          `${declared.resource} records have no field "${named}"; they have ${properties.join(', ')}`,
          `/company/people_in/${index}/${field}`,
        );
      }
    }
    if (!personFields(shape.record, declared)) {
      return at(
        `${declared.resource} records have no field that reads as a person's address and name; name them with ` +
          `{ resource: ${declared.resource}, email: <field>, name: <field> }`,
      );
    }
    return [];
  });

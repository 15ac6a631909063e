import { IngestionProblem, SourceLocator } from '@libs/bundle-documents';
import { flattenSchema, resourceShapes, ResourceShape } from '@libs/openapi-schemas';
import type { ServiceBehaviours, ServiceModel } from '@libs/stack-model';

import { behaviourExpressionProblem } from './behaviour-expressions';
import { manifestFile, StackManifest } from './stack-manifest';

const listed = (names: string[]): string => {
  const shown = names.slice(0, 15).join(', ');
  return names.length > 15 ? `${shown} … (${names.length} in all)` : shown || 'none';
};

const template = (path: string): string => path.split('#')[0].replace(/\{[^{}]+\}/g, '{}');

/** The problems of one service's `behaviours:`, each at its JSON pointer in mirror.yaml. */
const serviceProblems = (
  service: ServiceModel,
  behaviours: ServiceBehaviours,
  at: (pointer: string, message: string) => void,
): void => {
  const shapes = new Map(resourceShapes(service).map((shape) => [shape.resource.name, shape]));
  const operations = new Map(service.operations.map((operation) => [operation.id, operation]));
  const resourceOf = (name: string, pointer: string): ResourceShape | undefined => {
    const shape = shapes.get(name);
    if (!shape) {
      at(pointer, `"${service.name}" has no resource "${name}"; its resources are ${listed([...shapes.keys()])}`);
    }
    return shape;
  };
  const fieldOf = (shape: ResourceShape, field: string, pointer: string): Record<string, unknown> | undefined => {
    const properties = (shape.record.properties ?? {}) as Record<string, unknown>;
    if (!(field in properties)) {
      at(pointer, `${shape.resource.name} has no field "${field}"; its fields are ${listed(Object.keys(properties))}`);
      return undefined;
    }
    return flattenSchema(service.document, properties[field]);
  };
  const operationAt = (id: string, pointer: string): boolean => {
    if (!operations.has(id)) {
      at(pointer, `"${service.name}" has no operation "${id}"; its operations are ${listed([...operations.keys()])}`);
      return false;
    }
    return true;
  };
  const expressionAt = (source: string | undefined, pointer: string): void => {
    const problem = source === undefined ? undefined : behaviourExpressionProblem(source);
    if (problem) {
      at(pointer, problem);
    }
  };

  (behaviours.stateMachines ?? []).forEach((machine, index) => {
    const base = `/stateMachines/${index}`;
    const shape = resourceOf(machine.resource, `${base}/resource`);
    const field = shape ? fieldOf(shape, machine.field, `${base}/field`) : undefined;
    const allowed = Array.isArray(field?.enum) ? field.enum.map(String) : undefined;
    machine.states.forEach((state, position) => {
      if (allowed && !allowed.includes(state)) {
        at(
          `${base}/states/${position}`,
          `"${state}" is not a value of ${machine.field}; the spec allows ${listed(allowed)}`,
        );
      }
    });
    const isState = (state: string | undefined, pointer: string): void => {
      if (state !== undefined && !machine.states.includes(state)) {
        at(pointer, `"${state}" is not one of the states ${listed(machine.states)}`);
      }
    };
    isState(machine.initial, `${base}/initial`);
    for (const [operationId, transition] of Object.entries(machine.transitions)) {
      const pointer = `${base}/transitions/${operationId.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!operationAt(operationId, pointer)) {
        continue;
      }
      const path = (operations.get(operationId) as ServiceModel['operations'][number]).path;
      if (shape && !template(path).startsWith(template(shape.resource.collectionPath))) {
        at(
          pointer,
          `${operationId} (${path}) does not act on ${shape.resource.name} (${shape.resource.collectionPath})`,
        );
      }
      (transition.from ?? []).forEach((state, position) => isState(state, `${pointer}/from/${position}`));
      isState(transition.to, `${pointer}/to`);
    }
  });

  (behaviours.sideEffects ?? []).forEach((effect, index) => {
    const base = `/sideEffects/${index}`;
    operationAt(effect.on, `${base}/on`);
    const target = effect.create ?? effect.update;
    const shape = target ? resourceOf(target, `${base}/${effect.create ? 'create' : 'update'}`) : undefined;
    if (shape && effect.create && !shape.resource.operations.create) {
      at(`${base}/create`, `${shape.resource.name} has no create operation to make records with`);
    }
    if (shape && effect.create && shape.resource.parent && effect.id === undefined) {
      at(
        `${base}/id`,
        `${shape.resource.name} is nested under ${shape.resource.parent}: "id" must give the parent's id`,
      );
    }
    expressionAt(effect.when, `${base}/when`);
    expressionAt(effect.id, `${base}/id`);
    for (const [name, source] of Object.entries(effect.fields)) {
      const pointer = `${base}/fields/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (shape) {
        fieldOf(shape, name, pointer);
      }
      expressionAt(source, pointer);
    }
  });

  (behaviours.derived ?? []).forEach((derived, index) => {
    const base = `/derived/${index}`;
    const shape = resourceOf(derived.resource, `${base}/resource`);
    if (shape) {
      fieldOf(shape, derived.field, `${base}/field`);
    }
    expressionAt(derived.value, `${base}/value`);
  });
};

/**
 * Each service's `behaviours:` must name what its spec has (operations by id, resources, their fields) and hold CEL
 * that parses and reads only the names it is given; every problem is reported at its line in mirror.yaml.
 */
export const behaviourProblems = (
  manifest: StackManifest,
  services: ServiceModel[],
  locator: SourceLocator,
): IngestionProblem[] => {
  const problems: IngestionProblem[] = [];
  manifest.services.forEach((source, index) => {
    if (!source.behaviours) {
      return;
    }
    const base = `/services/${index}/behaviours`;
    const at = (pointer: string, message: string): void => {
      problems.push(locator.problem(manifestFile, `${base}${pointer}`, message));
    };
    const service = services.find((s) => s.name === source.name);
    if (!service || service.pack !== undefined || service.tables !== undefined) {
      at('', 'behaviours apply to a service of the bundle\'s own spec ("spec:"), not to a pack or a data service');
      return;
    }
    serviceProblems(service, source.behaviours, at);
  });
  return problems;
};

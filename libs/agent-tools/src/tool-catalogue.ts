import {
  episodeVerbs,
  maxEpisodeTools,
  type Scenario,
  selectOperations,
  serviceOperations,
  type StackModel,
  toolService,
} from '@libs/stack-model';

import { episodeVerbTools } from './episode-verbs';
import { operationTool } from './operation-tools';
import { tableTools } from './table-tools';
import type { ToolDefinition } from './tool-contract';
import { ToolNames, toolNameOf } from './tool-naming';

/**
 * The episode's tools: for every service the scenario's `task.tools` allows, in the order it lists them, the
 * operations it selects in the service's own order (a data service's tables as list/insert/update/delete), then
 * `wait_for_events` and `finish_episode`. Names are `{service}_{operation}` in snake_case, unique and at most 64
 * characters; the same model and tools give the same catalogue every time. Ingestion has already refused unknown
 * services and operations and more than 128 tools; a model that skipped it is refused here the same way.
 */
export const toolCatalogue = (model: StackModel, tools: Scenario['task']['tools']): ToolDefinition[] => {
  const built = catalogues.get(model) ?? new Map<string, ToolDefinition[]>();
  catalogues.set(model, built);
  const key = JSON.stringify(tools);
  const known = built.get(key);
  if (known) {
    return [...known];
  }
  const catalogue = buildCatalogue(model, tools);
  built.set(key, catalogue);
  return [...catalogue];
};

/**
 * Catalogues already built, per model and tools: every episode of a task gets the same definitions (and so the same
 * compiled argument validators) instead of converting a vendor spec again. The definitions are shared: read-only.
 */
const catalogues = new WeakMap<StackModel, Map<string, ToolDefinition[]>>();

const buildCatalogue = (model: StackModel, tools: Scenario['task']['tools']): ToolDefinition[] => {
  const catalogue = operationTools(model, tools);
  if (catalogue.length + episodeVerbs.length > maxEpisodeTools) {
    throw new Error(
      `the task's tools come to ${catalogue.length + episodeVerbs.length}, more than the ${maxEpisodeTools} an agent can be given`,
    );
  }
  return [...catalogue, ...episodeVerbTools()];
};

/** The services' operations as tools, however many (a whole vendor spec, when checking that every one converts). */
export const operationTools = (model: StackModel, tools: Scenario['task']['tools']): ToolDefinition[] => {
  const names = new ToolNames(episodeVerbs);
  return tools.flatMap((selection) => {
    const service = model.services.find((s) => s.name === toolService(selection));
    if (!service) {
      throw new Error(`the stack has no service "${toolService(selection)}"`);
    }
    const { operations, unmatched } = selectOperations(selection, serviceOperations(service));
    if (unmatched.length > 0) {
      throw new Error(`"${service.name}" has no operation matching ${unmatched.map((p) => `"${p}"`).join(', ')}`);
    }
    const selected = new Set(operations);
    const claim = (operation: string): string | undefined =>
      selected.has(operation)
        ? names.claim(toolNameOf(service.name, operation), `${service.name}/${operation}`)
        : undefined;
    if (service.tables) {
      return service.tables.flatMap((table) => tableTools(service, table, model.entities, claim));
    }
    return service.operations.flatMap((operation) => {
      const name = claim(operation.id);
      return name ? [operationTool(service, operation, name)] : [];
    });
  });
};

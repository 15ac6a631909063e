import type { Scenario } from './scenario-schema';
import type { ServiceModel } from './stack-model';

/** One entry of a scenario's `task.tools`: a service's name, or the service curated to some of its operations. */
export type ToolSelection = Scenario['task']['tools'][number];

/**
 * The most tools an episode offers, its own verbs (`wait_for_events`, `finish_episode`) included: OpenAI's APIs take
 * at most 128 functions, and a model picks worse from more.
 */
export const maxEpisodeTools = 128;

/** The tools every episode has beside the services' operations. */
export const episodeVerbs = ['wait_for_events', 'finish_episode'] as const;

export const toolService = (selection: ToolSelection): string =>
  typeof selection === 'string' ? selection : selection.service;

/** The services a task's tools name, in the order given. */
export const toolServices = (tools: readonly ToolSelection[]): string[] => tools.map(toolService);

/** `listTickets`, `chat.postMessage`, `Get-Folder` → `list_tickets`, `chat_post_message`, `get_folder`. */
export const snakeCase = (text: string): string =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

/** The verbs a data service offers per table (served PostgREST-style), as its operations. */
export const tableOperations = (table: string): string[] =>
  ['list', 'insert', 'update', 'delete'].map((verb) => `${verb}_${snakeCase(table)}`);

/** One operation an agent's tool performs: its id, and the request it sends (the path a template, `/tickets/{id}`). */
export interface OperationRoute {
  id: string;
  method: string;
  path: string;
}

const tableMethods = ['get', 'post', 'patch', 'delete'];

/**
 * The operations a service offers an agent as tools: a data service's table verbs (served PostgREST-style at
 * `/<table>`), otherwise its spec's operations (a pack's included), in the service's order.
 */
export const serviceRoutes = (service: ServiceModel): OperationRoute[] =>
  service.tables
    ? service.tables.flatMap((table) =>
        tableOperations(table).map((id, index) => ({ id, method: tableMethods[index], path: `/${table}` })),
      )
    : service.operations.map((operation) => ({
        id: operation.id,
        method: operation.method,
        // Box tells operations on one path apart with a fragment (`/folders/{id}#add_shared_link`): never sent.
        path: operation.path.replace(/#.*$/, ''),
      }));

/** The operations a service offers an agent as tools, by id. */
export const serviceOperations = (service: ServiceModel): string[] => serviceRoutes(service).map((route) => route.id);

/**
 * The operations a request could be sent through: same method, and a path the template matches (`{{ }}` templates
 * of a plan stand for one segment each; the query is not the route's).
 */
export const routesOf = (routes: readonly OperationRoute[], method: string, path: string): string[] => {
  const concrete = path.replace(/\{\{[^}]*\}\}/g, 'x').replace(/[?#].*$/, '');
  return routes
    .filter((route) => route.method.toLowerCase() === method.toLowerCase())
    .filter((route) =>
      new RegExp(
        `^${route.path
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}/?$`,
      ).test(concrete),
    )
    .map((route) => route.id);
};

/** `*` any run of characters, `?` one; compared with the operation's id and with its snake_case form. */
const patternMatches = (pattern: string, operation: string): boolean => {
  const expression = new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );
  return expression.test(operation) || expression.test(snakeCase(operation));
};

/**
 * The operations one tools entry selects from what its service offers, in the service's order, and the patterns
 * that select none (a typo must not silently leave the agent without a tool).
 */
export const selectOperations = (
  selection: ToolSelection,
  offered: readonly string[],
): { operations: string[]; unmatched: string[] } => {
  if (typeof selection === 'string') {
    return { operations: [...offered], unmatched: [] };
  }
  const unmatched = selection.operations.filter((pattern) => !offered.some((o) => patternMatches(pattern, o)));
  const operations = offered.filter((o) => selection.operations.some((pattern) => patternMatches(pattern, o)));
  return { operations, unmatched };
};

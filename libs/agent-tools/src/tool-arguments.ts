import type { ArgumentPlacement, JsonSchema } from './tool-contract';

/** One argument before names are settled: where it goes, its own name there, and its schema. */
export interface ArgumentCandidate {
  in: ArgumentPlacement['in'];
  name: string;
  schema: JsonSchema;
  required: boolean;
}

const prefixes: Record<ArgumentPlacement['in'], string> = {
  path: 'path',
  query: 'query',
  header: 'header',
  body: 'body',
  'body-field': 'body',
  'query-map': 'query',
};

/** Names some clients refuse (`page[size]`, `$filter` are fine in HTTP, not in every model API's argument names). */
const safeName = (name: string): string =>
  name
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64) || 'argument';

/**
 * Path, query, header and body arguments as one flat object schema: a name two places share is prefixed with where
 * it goes (`path_id`, `body_id`), so every argument says unambiguously where it lands. Unknown arguments are refused
 * (`additionalProperties: false`): a misspelt one silently dropped would make the call do something else.
 */
export const flatArguments = (
  candidates: readonly ArgumentCandidate[],
): { inputSchema: JsonSchema; arguments: ArgumentPlacement[] } => {
  const counts = new Map<string, number>();
  candidates.forEach((c) => counts.set(safeName(c.name), (counts.get(safeName(c.name)) ?? 0) + 1));
  const taken = new Set<string>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const placements: ArgumentPlacement[] = [];
  for (const candidate of candidates) {
    const plain = safeName(candidate.name);
    let argument = (counts.get(plain) ?? 0) > 1 ? safeName(`${prefixes[candidate.in]}_${candidate.name}`) : plain;
    for (let n = 2; taken.has(argument); n++) {
      argument = `${plain}_${n}`;
    }
    taken.add(argument);
    properties[argument] = candidate.schema;
    if (candidate.required) {
      required.push(argument);
    }
    placements.push({ argument, in: candidate.in, name: candidate.name });
  }
  return {
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    arguments: placements,
  };
};

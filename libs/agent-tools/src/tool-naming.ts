import { createHash } from 'node:crypto';

import { snakeCase } from '@libs/stack-model';

/** OpenAI's function names and MCP clients' tool names both stop at 64 characters. */
export const maxToolNameLength = 64;

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** `{service}_{operation}` in snake_case; too long, cut and suffixed with a hash of the whole name, so still unique. */
export const toolNameOf = (service: string, operation: string): string => {
  const full = `${snakeCase(service)}_${snakeCase(operation)}`.replace(/^_+/, '') || 'tool';
  return full.length <= maxToolNameLength ? full : withSuffix(full, full);
};

const withSuffix = (name: string, key: string): string =>
  `${name.slice(0, maxToolNameLength - 9).replace(/_+$/, '')}_${hashOf(key)}`;

/**
 * Hands out names in order: a name already taken (two operation ids that snake_case alike, `getItem` and `get_item`)
 * gets a hash of its own key, so the first keeps its plain name and the catalogue stays the same from run to run.
 */
export class ToolNames {
  private readonly taken = new Set<string>();

  constructor(reserved: readonly string[]) {
    reserved.forEach((name) => this.taken.add(name));
  }

  claim(name: string, key: string): string {
    let claimed = name;
    for (let attempt = 0; this.taken.has(claimed); attempt++) {
      claimed = withSuffix(name, attempt === 0 ? key : `${key}#${attempt}`);
    }
    this.taken.add(claimed);
    return claimed;
  }
}

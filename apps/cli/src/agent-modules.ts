import * as fs from 'node:fs';
import * as path from 'node:path';

import { ReferenceAgent, referenceAgents } from '@libs/reference-agents';
import { UsageError } from '@cli/cli-output';

/** A name with a path in it or a JavaScript file's ending is a user's module; any other names a built-in agent. */
export const isAgentFile = (name: string): boolean => /[\\/]/.test(name) || /\.[cm]?js$/i.test(name);

const isRunnable = (value: unknown): value is { name?: unknown; run: (...args: unknown[]) => unknown } =>
  typeof value === 'object' && value !== null && typeof (value as { run?: unknown }).run === 'function';

/**
 * The agent a module exports, in any of the documented shapes: `export default { name, run }`, `export const agent =
 * { name, run }`, a default-exported function, or the same through CommonJS (`module.exports = …`). Its name is the
 * one it gives, else the file's.
 */
export const agentFromModule = (moduleExports: unknown, file: string): ReferenceAgent | undefined => {
  const namespace = (moduleExports ?? {}) as Record<string, unknown>;
  const outer = namespace.default as Record<string, unknown> | undefined;
  const candidates = [namespace.agent, outer, outer?.agent, outer?.default];
  const found = candidates.find((c) => typeof c === 'function' || isRunnable(c));
  const fallback = path.basename(file).replace(/\.[cm]?js$/i, '');
  if (typeof found === 'function') {
    const run = found as ReferenceAgent['run'];
    return { name: found.name && found.name !== 'default' ? found.name : fallback, run: (session) => run(session) };
  }
  if (isRunnable(found)) {
    const name = typeof found.name === 'string' && found.name.trim() ? found.name.trim() : fallback;
    return { name, run: async (session) => void (await found.run(session)) };
  }
  return undefined;
};

/** Loads a user's agent module; a missing, broken or agent-less module is a usage error naming the file. */
export const loadAgentModule = async (file: string): Promise<ReferenceAgent> => {
  const absolute = path.resolve(file);
  if (!fs.existsSync(absolute) || !fs.statSync(absolute).isFile()) {
    throw new UsageError(`${file}: no such agent module`);
  }
  let loaded: unknown;
  try {
    // Compiled to require(): Node 20.19+ requires ES modules (.mjs) as well, those without top-level await.
    loaded = (await import(absolute)) as unknown;
  } catch (error) {
    throw new UsageError(
      `${file}: the agent module could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const agent = agentFromModule(loaded, absolute);
  if (!agent) {
    throw new UsageError(
      `${file} exports no agent: export default (or export \`agent\`) an object with a run(session) function, or a function of the session`,
    );
  }
  if (referenceAgents.has(agent.name)) {
    throw new UsageError(`${file}: its agent is named "${agent.name}", a built-in agent's name; give it another`);
  }
  return agent;
};

/** The agents a command was given: built-in names, `all` (every built-in one), and paths to user modules. */
export const resolveAgents = async (names: string): Promise<ReferenceAgent[]> => {
  const builtIn = [...referenceAgents.keys()];
  const agents: ReferenceAgent[] = [];
  for (const name of names === 'all' ? builtIn : names.split(',').map((n) => n.trim())) {
    if (isAgentFile(name)) {
      agents.push(await loadAgentModule(name));
      continue;
    }
    const agent = referenceAgents.get(name);
    if (!agent) {
      throw new UsageError(
        `no reference agent "${name}"; use ${builtIn.join(', ')}, all, or a path to your own module (./my-agent.mjs)`,
      );
    }
    agents.push(agent);
  }
  return agents;
};

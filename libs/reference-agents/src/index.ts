import { ReferenceAgent } from './agent-session';
import { diligentAgent } from './diligent-agent';
import { idleAgent } from './idle-agent';
import { sloppyAgent } from './sloppy-agent';

export * from './adversarial-agents';
export * from './agent-session';
export * from './purchase-brief';
export * from './plan-agent';

/** The reference agents tests, demos and benchmarks run, by name. */
export const referenceAgents: ReadonlyMap<string, ReferenceAgent> = new Map(
  [diligentAgent, sloppyAgent, idleAgent].map((agent) => [agent.name, agent]),
);

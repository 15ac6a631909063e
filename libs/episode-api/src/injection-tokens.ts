/** Nest injection tokens of the episode API: the tool formats it speaks, and the lifecycle port adapters are given. */
export const AGENT_TOOLKIT = Symbol('AgentToolkit');
export const EPISODE_LIFECYCLE_PORT = Symbol('EpisodeLifecyclePort');

export * from './worker-factory';
export type { HealthActivities } from './activities/health.activities';
export type { PersonaActivities } from './activities/persona.activities';
export type { ReactionActivities } from './activities/reaction.activities';
export * from './rollout-worker';
export type { PlayTrial, RolloutActivities, RolloutStore, RolloutTrial } from './activities/rollout.activities';
export * from './scaled-out-agents';

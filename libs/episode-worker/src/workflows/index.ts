export { healthCheckWorkflow } from './health-check.workflow';
export { episodeWorkflow } from './episode.workflow';
export { rolloutWorkflow } from './rollout.workflow';

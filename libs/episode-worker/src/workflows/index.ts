export { healthCheckWorkflow } from './health-check.workflow';
export { episodeWorkflow } from './episode.workflow';

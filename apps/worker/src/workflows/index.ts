export { healthCheckWorkflow } from './health-check.workflow';

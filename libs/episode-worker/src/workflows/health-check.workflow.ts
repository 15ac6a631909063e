import { proxyActivities } from '@temporalio/workflow';

import type { HealthCheckInput, HealthCheckResult } from '@libs/workflow-contracts';

import type { HealthActivities } from '../activities/health.activities';

const { echoFromWorker } = proxyActivities<HealthActivities>({ startToCloseTimeout: '10 seconds' });

/** The smallest round trip through Temporal: workflow → activity → workflow. Used by smoke tests and `mirror doctor`. */
export async function healthCheckWorkflow(input: HealthCheckInput): Promise<HealthCheckResult> {
  return echoFromWorker(input.nonce);
}

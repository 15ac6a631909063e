export * from './playable-on-workers';
export * from './rollout-launch-error';
export * from './rollout-launcher';
export * from './workers-queue';
export * from './patient-workflow-result';

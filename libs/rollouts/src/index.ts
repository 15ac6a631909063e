export * from './pass-at-k';
export * from './student-t';
export * from './rollout-report';
export * from './rollout-plan';
export * from './rollout-tasks';

export * from './episode-runner';
export * from './episode-grading';
export * from './session-conduct';
export * from './oracle-plan-agent';

export * from './episode-runner';
export * from './signalling-episode-store';
export * from './episode-grading';
export * from './session-conduct';
export * from './oracle-plan-agent';

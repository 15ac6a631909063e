export * from './episode-api-app';
export * from './episode-protocols';
export * from './episodes.module';
export * from './injection-tokens';
export * from './rollouts.controller';
export * from './rollout-starts.controller';

export * from './audit-entry';
export * from './call-chain';
export * from './chain-verification';
export * from './evidence-bundle';
export * from './merkle-tree';
export * from './rollout-material';

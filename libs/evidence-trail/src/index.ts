export * from './audit-entry';
export * from './chain-verification';
export * from './evidence-bundle';
export * from './merkle-tree';

export * from './process/logger';
export * from './process/ports';
export * from './process/stop-signal';
export * from './postgres/embedded-postgres';
export * from './postgres/local-postgres-cluster';
export * from './postgres/database-provisioning';
export * from './temporal/temporal-cli-locator';
export * from './temporal/temporal-provisioning';

export * from './mirror-config';
export * from './settings-table';
export * from './migration-database';

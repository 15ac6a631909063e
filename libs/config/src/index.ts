export * from './mirror-config';
export * from './settings-table';

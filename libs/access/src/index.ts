export * from './access-rules';
export * from './access.guard';
export * from './api-keys';
export * from './authenticator';
export * from './roles';
export * from './key-lifetime';

export * from './document-validators';
export * from './json-schema-conversion';
export * from './schema-resolution';
export * from './resource-shapes';
export * from './linear-patterns';
export * from './security-requirements';

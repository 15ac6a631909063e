export * from './ingestion.error';
export * from './bundle-files';
export * from './bundle-limits';
export * from './document-parser';
export * from './source-locator';
export * from './json-pointer';
export * from './schema-problems';
export * from './document-budget';

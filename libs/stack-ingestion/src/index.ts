export * from './ingestion.error';
export { appendPointer, escapePointerSegment, getAtPointer, parsePointer } from './documents/json-pointer';
export * from './ingest-stack';
export * from './model/stack-model';
export * from './model/stack-diff';
export * from './model/stack-summary';
export * from './typegen/generate-types';
export { stackManifestSchema, type StackManifest } from './manifest/stack-manifest';
export { bundleLimits } from './bundle/bundle-limits';

export * from './ingestion.error';
export { appendPointer, escapePointerSegment, getAtPointer, parsePointer } from './documents/json-pointer';
export { dereference } from './openapi/internal-reference';
export * from './ingest-stack';
export * from './model/stack-model';
export * from './model/stack-diff';
export * from './model/stack-summary';
export * from './typegen/generate-types';
export { stackManifestSchema, type StackManifest } from './manifest/stack-manifest';
export type {
  CompanyDeclaration,
  DeclaredChannel,
  DeclaredDepartment,
  DeclaredPerson,
} from './manifest/company-section';
export { bundleLimits } from './bundle/bundle-limits';
export type { FieldProfile, SampleProfile } from './samples/sample-profile';
export { canonicalName } from './data-schemas/naming';

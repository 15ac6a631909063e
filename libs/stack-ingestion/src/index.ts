// The model and the reading of bundle documents live in the leaf libraries @libs/stack-model and
// @libs/bundle-documents; ingestion re-exports what it exported before they moved, so existing imports keep working.
export {
  formatLocation,
  formatProblem,
  IngestionError,
  type IngestionErrorCode,
  type IngestionProblem,
  type SourceLocation,
} from '@libs/bundle-documents';
export { appendPointer, escapePointerSegment, getAtPointer, parsePointer } from '@libs/bundle-documents';
export { dereference } from './openapi/internal-reference';
export { detectOperationPagination } from './openapi/pagination-detection';
export * from './ingest-stack';
export * from '@libs/stack-model';
export * from './model/stack-diff';
export * from './model/stack-summary';
export * from './typegen/generate-types';
export { stackManifestSchema, type StackManifest } from './manifest/stack-manifest';
export { bundleLimits } from '@libs/bundle-documents';
export type { FieldProfile, SampleProfile } from '@libs/stack-model';
export { canonicalName } from '@libs/stack-model';
export { packVocabularyFile, type PackVocabulary } from './packs/pack-vocabulary';
export type { CompanyDeclaration, DeclaredChannel, DeclaredDepartment, DeclaredPerson } from '@libs/stack-model';
export {
  behaviourExpressionProblem,
  BehaviourExpressionError,
  evaluateBehaviourExpression,
} from './manifest/behaviour-expressions';
export { manifestJsonSchema } from './manifest/manifest-json-schema';

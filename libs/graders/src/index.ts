export * from './attachment-text';
export * from './episode-grade';
export * from './episode-log';
export * from './number-forms';
// The policy schema lives in @libs/stack-model (the stack model holds policy sets); re-exported for existing imports.
export * from '@libs/stack-model';
export * from './rubric-grader';
export * from './rules/grading-context';
export * from './rules/outgoing-messages';
export * from './rules/rule-evaluation';
export * from './policy-json-schema';
export * from './policy-references';
export * from './policy-reader';

// The scenario schema lives in @libs/stack-model (the stack model holds scenarios); re-exported for existing imports.
export * from '@libs/stack-model';
export * from './scenario-values';
export * from './scenario-validation';
export * from './task-instance';
export * from './scenario-json-schema';
export * from './instance-key';
export * from './scenario-reader';
export * from './hidden-facts';
export * from './predicates/predicate-language';
export { typeOfFact } from './predicates/scenario-predicates';
export * from './oracle-plan';

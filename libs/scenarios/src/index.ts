export * from './scenario-schema';
export * from './scenario-values';
export * from './scenario-validation';
export * from './task-instance';
export * from './scenario-json-schema';
export * from './instance-key';
export * from './hidden-facts';
export * from './predicates/predicate-language';
export { typeOfFact } from './predicates/scenario-predicates';

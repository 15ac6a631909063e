export * from './seeded-random';
export * from './value-synthesizer';
export * from './world';
export * from './world-builder';
export { isCreatedField, isUpdatedField } from './field-heuristics';
export { exampleValues, isCategoryField } from './spec-hints';
export * from './company';
export { buildDataTables, rowKey } from './data-tables';
export { personFields, declaredPeopleResources } from './company-people';

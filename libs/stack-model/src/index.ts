export * from './stack-model';
export * from './sample-profile';
export * from './naming';
export * from './scenario-schema';
export * from './policy-schema';
export * from './rubric-item-schema';
export * from './hidden-fact-schema';
export * from './company-section';

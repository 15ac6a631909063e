export * from './number-forms';
export * from './policy-schema';
export * from './rule-evaluation';
export * from './rubric-grader';

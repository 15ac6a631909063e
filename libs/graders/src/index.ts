export * from './episode-grade';
export * from './episode-log';
export * from './number-forms';
export * from './policy-schema';
export * from './rubric-grader';
export * from './rules/grading-context';
export * from './rules/rule-evaluation';
export * from './policy-json-schema';

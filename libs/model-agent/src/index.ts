export * from './model-loop';

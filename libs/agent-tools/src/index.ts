export * from './tool-contract';

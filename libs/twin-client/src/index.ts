export * from './twin-client';

export * from './episode-trace';
export * from './gateway-telemetry';
export * from './json-logger';
export * from './metrics';
export * from './nest-telemetry';
export * from './temporal-telemetry';
export * from './trace-headers';
export * from './tracing';

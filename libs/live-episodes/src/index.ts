export * from './agent-toolkit';
export * from './episode-result';
export * from './episode-tokens';
export * from './live-episode-registry';
export * from './task-ids';
export * from './trajectory-view';
export * from './idempotent-requests';
export * from './tool-dispatch';

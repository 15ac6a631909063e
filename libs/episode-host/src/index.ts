export * from './episode-host';
export * from './grade-summary';

export * from './episode-host';
export * from './grade-summary';
export * from './episode-evidence';
export * from './episode-player';
export * from './hosted-episodes';
export * from './trail-audit';

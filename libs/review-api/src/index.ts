export * from './console-files';
export * from './report-printer';
export * from './review-error.filter';
export * from './review-http';
export * from './review.controller';
export * from './review-api.module';

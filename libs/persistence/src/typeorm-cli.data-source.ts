import { createDataSource } from './data-source';

// Loaded only by the TypeORM CLI (`npm run db:migration:generate`), which needs a default export.
export default createDataSource(
  process.env.MIRROR_MIGRATION_DATABASE_URL ??
    process.env.DATABASE_URL ??
    'postgresql://postgres@127.0.0.1:5432/postgres',
);

import { RunningDatabase, silentLog, startLocalPostgresCluster } from '@libs/embedded-services';
import { createDataSource } from '@libs/persistence';

/**
 * The database a benchmark's host uses: undefined for what `mirror up` gives a user (embedded PGlite, or
 * DATABASE_URL), or with MIRROR_BENCH_DATABASE=postgres a throw-away local PostgreSQL cluster (the test database),
 * migrated; the caller stops it.
 */
export const benchDatabase = async (): Promise<RunningDatabase | undefined> => {
  if (process.env.MIRROR_BENCH_DATABASE !== 'postgres') {
    return undefined;
  }
  const cluster = await startLocalPostgresCluster(silentLog);
  const migrating = createDataSource(cluster.url);
  await migrating.initialize();
  await migrating.runMigrations({ transaction: 'each' });
  await migrating.destroy();
  return cluster;
};

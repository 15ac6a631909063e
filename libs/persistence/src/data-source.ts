import { DataSource } from 'typeorm';

import { StackVersionEntity } from './entities/stack-version.entity';
import { StackEntity } from './entities/stack.entity';
import { CreateStacks1764460000000 } from './migrations/1764460000000-create-stacks';
import { CreateEpisodes1764470000000 } from './migrations/1764470000000-create-episodes';
import { EpisodeGrades1764480000000 } from './migrations/1764480000000-episode-grades';
import { EpisodeSecrets1764490000000 } from './migrations/1764490000000-episode-secrets';
import { InstallationKeys1764495000000 } from './migrations/1764495000000-installation-keys';
import { EpisodeScenarios1764500000000 } from './migrations/1764500000000-episode-scenarios';
import { LiveEpisodes1764510000000 } from './migrations/1764510000000-live-episodes';
import { CreateRollouts1764700000000 } from './migrations/1764700000000-create-rollouts';
import { AuditTrail1764800000000 } from './migrations/1764800000000-audit-trail';
import { ApiKeys1764900005000 } from './migrations/1764900005000-api-keys';
import { ReviewAnnotations1764900006000 } from './migrations/1764900006000-review-annotations';
import { EpisodeCalls1764900009000 } from './migrations/1764900009000-episode-calls';
import { IdempotencyKeysPerTenant1765000010000 } from './migrations/1765000010000-idempotency-keys-per-tenant';
import { EpisodeCallChain1765100001000 } from './migrations/1765100001000-episode-call-chain';
import { EpisodeEvidenceAppendOnly1765200004000 } from './migrations/1765200004000-episode-evidence-append-only';
import { GradeModels1765300002000 } from './migrations/1765300002000-grade-models';
import { AuditHashVersion1765400001000 } from './migrations/1765400001000-audit-hash-version';

export const entities = [StackEntity, StackVersionEntity];
export const migrations = [
  CreateStacks1764460000000,
  CreateEpisodes1764470000000,
  EpisodeGrades1764480000000,
  EpisodeSecrets1764490000000,
  InstallationKeys1764495000000,
  EpisodeScenarios1764500000000,
  LiveEpisodes1764510000000,
  CreateRollouts1764700000000,
  AuditTrail1764800000000,
  ApiKeys1764900005000,
  ReviewAnnotations1764900006000,
  EpisodeCalls1764900009000,
  IdempotencyKeysPerTenant1765000010000,
  EpisodeCallChain1765100001000,
  EpisodeEvidenceAppendOnly1765200004000,
  GradeModels1765300002000,
  AuditHashVersion1765400001000,
];

/**
 * How long a query waits for a free connection before it fails. Queries hold a connection for milliseconds, so a wait
 * this long means no connection will come back (a transaction waiting on a query outside it, with every connection
 * taken): failing the query rolls that transaction back and frees its connection, where waiting would stop every
 * later query of the process too.
 */
const connectionWaitMs = 120_000;

/**
 * The one place TypeORM is configured. Schema changes go through committed migrations, never `synchronize`.
 * `poolSize`: connections at most (episodes played at once each hold one only for a query).
 */
export const createDataSource = (url: string, options: { poolSize?: number } = {}): DataSource =>
  new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    extra: { max: options.poolSize ?? 8, connectionTimeoutMillis: connectionWaitMs },
  });

export class PendingMigrationsError extends Error {
  constructor() {
    super('the database has pending migrations: run `npm run db:migrate` first');
  }
}

/** Apps refuse to start on an out-of-date schema rather than fail later on a missing column. */
export const assertNoPendingMigrations = async (dataSource: DataSource): Promise<void> => {
  if (await dataSource.showMigrations()) {
    throw new PendingMigrationsError();
  }
};

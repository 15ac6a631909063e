import * as path from 'node:path';

import { MirrorConfig } from '@libs/config';

import { ServiceLog } from '../process/logger';
import { RunningDatabase, startEmbeddedPostgres } from './embedded-postgres';

/** The database the apps use: DATABASE_URL when set, else embedded PGlite under the project's data folder. */
export const provideDatabase = async (
  config: Pick<MirrorConfig, 'DATABASE_URL' | 'MIRROR_DATA_DIR'>,
  log: ServiceLog,
): Promise<RunningDatabase> => {
  if (config.DATABASE_URL) {
    log.log(`database: using DATABASE_URL (${redactUrl(config.DATABASE_URL)})`);
    return { url: config.DATABASE_URL, source: 'DATABASE_URL', stop: () => Promise.resolve() };
  }
  return startEmbeddedPostgres(path.join(config.MIRROR_DATA_DIR, 'pglite'), log);
};

export const redactUrl = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

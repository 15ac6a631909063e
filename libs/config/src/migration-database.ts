import { ConfigError, MirrorConfig } from './mirror-config';

export interface MigrationDatabase {
  /** The schema owner's connection. */
  url: string;
  /** The group role the apps' logins hold, granted its table rights after each migration. */
  appRole: string;
}

const userOf = (url: string): string => decodeURIComponent(new URL(url).username);

/**
 * Where `mirror db …` connects as the schema's owner, when the owner is not the apps' role; undefined when one role
 * does both (MIRROR_MIGRATION_DATABASE_URL unset). The same user in both URLs would be one role under two names: the
 * app would own the tables after all, so that is refused rather than taken for a separation.
 */
export const migrationDatabase = (
  config: Pick<MirrorConfig, 'DATABASE_URL' | 'MIRROR_MIGRATION_DATABASE_URL' | 'MIRROR_DATABASE_APP_ROLE'>,
): MigrationDatabase | undefined => {
  const owner = config.MIRROR_MIGRATION_DATABASE_URL;
  if (!owner) {
    return undefined;
  }
  if (config.DATABASE_URL && userOf(owner) !== '' && userOf(owner) === userOf(config.DATABASE_URL)) {
    throw new ConfigError([
      {
        field: 'MIRROR_MIGRATION_DATABASE_URL',
        message: `connects as DATABASE_URL's user (${userOf(owner)}): the schema's owner must be another role than the apps'`,
      },
    ]);
  }
  if (userOf(owner) === config.MIRROR_DATABASE_APP_ROLE) {
    throw new ConfigError([
      {
        field: 'MIRROR_DATABASE_APP_ROLE',
        message: `is the user of MIRROR_MIGRATION_DATABASE_URL (${userOf(owner)}): the apps' group role must be another`,
      },
    ]);
  }
  return { url: owner, appRole: config.MIRROR_DATABASE_APP_ROLE };
};

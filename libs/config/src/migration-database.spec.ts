import { ConfigError, loadConfig } from './mirror-config';
import { migrationDatabase } from './migration-database';

const app = 'postgres://mirror_login:pw@db:5432/mirror';
const owner = 'postgres://mirror_owner:pw2@db:5432/mirror';

describe('migrationDatabase', () => {
  it('is the owner URL and the group role when a separate owner is set, else nothing', () => {
    expect(migrationDatabase(loadConfig({ DATABASE_URL: app, MIRROR_MIGRATION_DATABASE_URL: owner }))).toEqual({
      url: owner,
      appRole: 'mirror_app',
    });
    expect(
      migrationDatabase(loadConfig({ MIRROR_MIGRATION_DATABASE_URL: owner, MIRROR_DATABASE_APP_ROLE: 'staging_app' })),
    ).toEqual({ url: owner, appRole: 'staging_app' });
    expect(migrationDatabase(loadConfig({ DATABASE_URL: app }))).toBeUndefined();
    expect(migrationDatabase(loadConfig({}))).toBeUndefined();
  });

  it('refuses one role under two names, naming the variable', () => {
    const same = 'postgres://mirror_login:other@db-direct:5432/mirror';
    expect(() => migrationDatabase(loadConfig({ DATABASE_URL: app, MIRROR_MIGRATION_DATABASE_URL: same }))).toThrow(
      new ConfigError([
        {
          field: 'MIRROR_MIGRATION_DATABASE_URL',
          message:
            "connects as DATABASE_URL's user (mirror_login): the schema's owner must be another role than the apps'",
        },
      ]),
    );
    expect(() =>
      migrationDatabase(loadConfig({ MIRROR_MIGRATION_DATABASE_URL: owner, MIRROR_DATABASE_APP_ROLE: 'mirror_owner' })),
    ).toThrow(/MIRROR_DATABASE_APP_ROLE: is the user of MIRROR_MIGRATION_DATABASE_URL \(mirror_owner\)/);
  });

  it('takes only a role name PostgreSQL needs no quoting for', () => {
    expect(() => loadConfig({ MIRROR_DATABASE_APP_ROLE: 'app"; DROP' })).toThrow(/MIRROR_DATABASE_APP_ROLE/);
    expect(() => loadConfig({ MIRROR_MIGRATION_DATABASE_URL: 'mysql://x' })).toThrow(/MIRROR_MIGRATION_DATABASE_URL/);
  });
});

import * as path from 'node:path';

import { Client } from 'pg';
import { DataSource } from 'typeorm';

import { driftedEpisodes, unvouchedCalls } from '@libs/episode-host';
import { ingestStack } from '@libs/stack-ingestion';
import { StaticStackSource, TwinEngine } from '@libs/twin-engine';
import { databaseUrlFor, requireEnvironment } from '@test/support/test-services';

import { AppRoleGrantError, grantAppRole } from './app-role-grants';
import { assertNoPendingMigrations, createDataSource } from './data-source';
import { EpisodeCallLog } from './episode-call-log';
import { AuditTrailRepository } from './repositories/audit-trail.repository';
import { EpisodeCallRepository } from './repositories/episode-call.repository';
import { PostgresEpisodeStore } from './repositories/postgres-episode.store';
import { StackRepository } from './repositories/stack.repository';

/**
 * The schema owned by one role and used by another, as `mirror db migrate` with MIRROR_MIGRATION_DATABASE_URL sets it
 * up: the app's login, holding only the group role, does everything the app does and PostgreSQL itself refuses it
 * any change to evidence rows and any way to switch their triggers off. Real: a PostgreSQL server, its roles, the
 * committed migrations, the repositories and the engine on the example procurement stack. Mocked: nothing.
 */
describe('the app role, apart from the schema owner', () => {
  const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const names = {
    database: `mirror_roles_${suffix}`,
    owner: `owner_${suffix}`,
    login: `app_${suffix}`,
    plain: `plain_${suffix}`,
  };
  const appRole = `mirror_app_${suffix}`;
  const tenant = 'north';
  const server = requireEnvironment('MIRROR_TEST_DATABASE_SERVER');
  const urlAs = (user: string): string => {
    const url = new URL(databaseUrlFor(server, names.database));
    url.username = user;
    url.password = `pw-${user}`;
    return url.toString();
  };
  let owner: DataSource;
  let app: DataSource;
  let calls: EpisodeCallLog;

  /** Statements as the server's superuser, on the test's database (`in`) or the server's own. */
  const asSuperuser = async (...statements: string[]): Promise<void> => {
    const [database, list] = statements[0] === 'in' ? [names.database, statements.slice(1)] : [undefined, statements];
    const client = new Client({ connectionString: database ? databaseUrlFor(server, database) : server });
    await client.connect();
    try {
      for (const statement of list) {
        await client.query(statement);
      }
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await asSuperuser(
      `CREATE ROLE ${names.owner} LOGIN CREATEROLE PASSWORD 'pw-${names.owner}'`,
      `CREATE ROLE ${names.login} LOGIN PASSWORD 'pw-${names.login}'`,
      `CREATE ROLE ${names.plain} LOGIN PASSWORD 'pw-${names.plain}'`,
      `CREATE DATABASE ${names.database} OWNER ${names.owner}`,
    );
    owner = createDataSource(urlAs(names.owner), { poolSize: 1 });
    await owner.initialize();
    await owner.runMigrations({ transaction: 'each' });
    await grantAppRole(owner, appRole);
    await asSuperuser(`GRANT ${appRole} TO ${names.login}`);
    app = createDataSource(urlAs(names.login), { poolSize: 2 });
    await app.initialize();
  });

  afterAll(async () => {
    await calls?.close();
    await app?.destroy();
    await owner?.destroy();
    await asSuperuser(
      `DROP DATABASE IF EXISTS ${names.database} WITH (FORCE)`,
      `DROP ROLE IF EXISTS ${names.login}`,
      `DROP ROLE IF EXISTS ${appRole}`,
      `DROP ROLE IF EXISTS ${names.owner}`,
      `DROP ROLE IF EXISTS ${names.plain}`,
    );
  });

  it('makes the group role that cannot log in, and the app connects through it to an up-to-date schema', async () => {
    const [role] = await owner.query<{ rolcanlogin: boolean }[]>(
      `SELECT rolcanlogin FROM pg_roles WHERE rolname = $1`,
      [appRole],
    );
    expect(role).toEqual({ rolcanlogin: false });
    await expect(assertNoPendingMigrations(app)).resolves.toBeUndefined();
    const [tables] = await app.query<{ owned: string }[]>(
      `SELECT count(*) AS owned FROM pg_tables WHERE schemaname = current_schema() AND tableowner = current_user`,
    );
    expect(Number(tables.owned)).toBe(0);
  });

  it("plays the app's writes, and refuses it every change to evidence rows and their triggers", async () => {
    const ingested = await ingestStack({
      kind: 'path',
      path: path.join(__dirname, '../../../examples/acme-procurement'),
    });
    await new StackRepository(app).saveVersion(tenant, ingested.version, ingested.model);
    calls = new EpisodeCallLog(new EpisodeCallRepository(app), (message) => {
      throw new Error(message);
    });
    const engine = new TwinEngine(
      new PostgresEpisodeStore(app),
      new StaticStackSource(ingested.model),
      new Map(),
      {},
      calls,
    );
    const episode = await engine.createEpisode({ tenantId: tenant, stackVersion: ingested.version, seed: 7 });
    await engine.setFaults(tenant, episode.id, { services: { procurement: { errorRate: 0.5 } } });
    await engine.setFaults(tenant, episode.id, undefined);
    const read = await episode.handle(
      'procurement',
      {
        method: 'GET',
        path: '/suppliers',
        query: new URLSearchParams(),
        headers: { authorization: `Bearer ${episode.agentTokenFor('procurement') ?? ''}` },
      },
      'http://twin/suppliers',
    );
    expect(read.status).toBe(200);
    await episode.close();

    const counts = async () =>
      app.query<{ name: string; rows: string }[]>(
        `SELECT 'audit_entries' AS name, count(*) AS rows FROM audit_entries
         UNION ALL SELECT 'episode_events', count(*) FROM episode_events
         UNION ALL SELECT 'episode_calls', count(*) FROM episode_calls`,
      );
    const before = await counts();
    expect(before.map((c) => Number(c.rows))).toEqual([expect.any(Number), episode.state.seq, 1]);
    expect(Number(before[0].rows)).toBeGreaterThanOrEqual(4);

    // Privileges and ownership refuse these before any trigger runs: the triggers' "append-only" never shows.
    const refused = async (statement: string, why: RegExp): Promise<void> => {
      const error = await app.query(statement).then(
        () => undefined,
        (e: Error) => e,
      );
      expect({ statement, message: error?.message }).toEqual({ statement, message: expect.stringMatching(why) });
    };
    const denied = /^permission denied for table /;
    const notOwner = /^must be owner of (table|relation) /;
    for (const table of ['audit_entries', 'episode_events', 'episode_calls']) {
      await refused(`UPDATE ${table} SET at = now()`, denied);
      await refused(`DELETE FROM ${table}`, denied);
      await refused(`TRUNCATE ${table} CASCADE`, denied);
      await refused(`ALTER TABLE ${table} DISABLE TRIGGER USER`, notOwner);
      await refused(`DROP TRIGGER ${table}_append_only ON ${table}`, notOwner);
      await refused(`DROP TABLE ${table} CASCADE`, notOwner);
    }
    await refused(`DELETE FROM audit_heads`, denied);
    await refused(`TRUNCATE audit_heads`, denied);
    await refused(`UPDATE audit_heads SET tenant_id = 'south'`, denied);
    await refused(
      `CREATE TRIGGER t BEFORE INSERT ON audit_entries EXECUTE FUNCTION mirror_audit_append_only()`,
      denied,
    );
    await refused(`DELETE FROM migrations`, denied);
    // The one setting that skips every trigger of a session is a superuser's.
    await refused(`SET session_replication_role = replica`, /^permission denied to set parameter/);

    expect(await counts()).toEqual(before);
    // `mirror audit verify --deep`, from the app's own connection.
    const trail = new AuditTrailRepository(app);
    const chain = await trail.verify(tenant);
    expect(chain).not.toHaveProperty('broken');
    expect(chain.entries).toBe(Number(before[0].rows));
    expect(await driftedEpisodes(app, tenant)).toEqual([]);
    expect(await unvouchedCalls(app, tenant)).toEqual([]);
  });

  it('grants the same again on a later run, and refuses when a holder of the role owns a table', async () => {
    const grants = () =>
      owner.query<{ table_name: string; privilege_type: string }[]>(
        `SELECT table_name, privilege_type FROM information_schema.role_table_grants
         WHERE grantee = $1 AND table_name IN ('audit_entries', 'audit_heads', 'episode_calls', 'stacks', 'migrations')
         ORDER BY table_name, privilege_type`,
        [appRole],
      );
    const first = await grants();
    await grantAppRole(owner, appRole);
    expect(await grants()).toEqual(first);
    expect(first.map((g) => `${g.table_name}:${g.privilege_type}`)).toEqual([
      'audit_entries:INSERT',
      'audit_entries:SELECT',
      'audit_heads:INSERT',
      'audit_heads:SELECT',
      'episode_calls:INSERT',
      'episode_calls:SELECT',
      'migrations:SELECT',
      'stacks:DELETE',
      'stacks:INSERT',
      'stacks:SELECT',
      'stacks:UPDATE',
    ]);
    const [heads] = await owner.query<{ columns: string }[]>(
      `SELECT string_agg(column_name, ',' ORDER BY column_name) AS columns FROM information_schema.role_column_grants
       WHERE grantee = $1 AND table_name = 'audit_heads' AND privilege_type = 'UPDATE'`,
      [appRole],
    );
    expect(heads.columns).toBe('hash,seq');

    // As after a database first migrated by the app's own login: that login may still switch the triggers off.
    await asSuperuser('in', `ALTER TABLE api_keys OWNER TO ${names.login}`);
    try {
      await expect(grantAppRole(owner, appRole)).rejects.toThrow(
        new AppRoleGrantError(
          `role "${names.login}" holds the app role "${appRole}" and can act as the owner ("${names.login}") of ` +
            `table "api_keys": it could switch the append-only triggers off. Make the tables another role's ` +
            `(as a superuser: REASSIGN OWNED BY "${names.login}" TO <owner>) or revoke that membership`,
        ),
      );
    } finally {
      await asSuperuser('in', `ALTER TABLE api_keys OWNER TO ${names.owner}`);
    }
  });

  it('says how to make the role when the migrating role may not', async () => {
    const plain = createDataSource(urlAs(names.plain), { poolSize: 1 });
    await plain.initialize();
    try {
      await expect(grantAppRole(plain, `other_${suffix}`)).rejects.toThrow(
        `cannot create the app role "other_${suffix}" (permission denied to create role): create it as a role with ` +
          `CREATEROLE (CREATE ROLE "other_${suffix}" NOLOGIN) or give the migrating role CREATEROLE`,
      );
    } finally {
      await plain.destroy();
    }
  });
});

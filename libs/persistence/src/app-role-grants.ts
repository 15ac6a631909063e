import { DataSource, EntityManager } from 'typeorm';

/**
 * Tables the app's role may not use as it uses the others, and what it may do there instead. Evidence rows are
 * written once and read: no UPDATE, DELETE or TRUNCATE (the triggers refuse those too, but a table's owner can switch
 * triggers off, so the app must not be the owner and the privilege must not be there either). A table missing here
 * gets SELECT, INSERT, UPDATE and DELETE.
 */
export const restrictedTables: readonly { table: string; privileges: string }[] = [
  { table: 'audit_entries', privileges: 'SELECT, INSERT' },
  { table: 'episode_events', privileges: 'SELECT, INSERT' },
  { table: 'episode_calls', privileges: 'SELECT, INSERT' },
  // An append locks the tenant's head row (SELECT … FOR UPDATE) and moves it; which tenant a head is never changes.
  { table: 'audit_heads', privileges: 'SELECT, INSERT, UPDATE ("seq", "hash")' },
  // Read by every app to refuse starting on pending migrations; only the schema's owner records one.
  { table: 'migrations', privileges: 'SELECT' },
];

const quoted = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

export class AppRoleGrantError extends Error {}

/**
 * Gives the group role the apps log in through (NOLOGIN, made when missing) what they need on every table of the
 * schema, run by the schema's owner after its migrations. It is idempotent and sets every table's grants afresh, so it
 * runs after each `mirror db migrate` rather than once as a migration: tables of later migrations, a database that
 * was first migrated by the app's own role, and a renamed role all end up with the same grants.
 *
 * It refuses, naming the table, when a member of the role (other than the owner running this) owns a table or can act
 * as its owner: that member could switch the append-only triggers off, which is what separating the roles prevents.
 */
export const grantAppRole = async (dataSource: DataSource, role: string): Promise<void> =>
  dataSource.transaction(async (manager) => {
    const [{ schema, me }] = await manager.query<{ schema: string; me: string }[]>(
      `SELECT current_schema() AS schema, current_user AS me`,
    );
    if (role === me) {
      throw new AppRoleGrantError(
        `the app role "${role}" is the role running the migrations: it would own the tables; name another`,
      );
    }
    await ensureRole(manager, role);
    await refuseOwningMembers(manager, role, schema);
    try {
      await grantTables(manager, role, schema);
    } catch (error) {
      if (error instanceof AppRoleGrantError) {
        throw error;
      }
      throw new AppRoleGrantError(
        `cannot grant the app role "${role}" its rights (${(error as Error).message}): the role running the ` +
          `migrations ("${me}") must own the tables of schema "${schema}"`,
      );
    }
    await refuseWrongGrants(manager, role, schema);
  });

const grantTables = async (manager: EntityManager, role: string, schema: string): Promise<void> => {
  const to = quoted(role);
  await manager.query(`GRANT USAGE ON SCHEMA ${quoted(schema)} TO ${to}`);
  await manager.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${quoted(schema)} TO ${to}`);
  await manager.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${quoted(schema)} TO ${to}`);
  for (const { table, privileges } of restrictedTables) {
    const [{ found }] = await manager.query<{ found: string | null }[]>(`SELECT to_regclass($1)::text AS found`, [
      `${quoted(schema)}.${quoted(table)}`,
    ]);
    if (found === null) {
      throw new AppRoleGrantError(`table "${table}" is missing from schema "${schema}": run the migrations first`);
    }
    // REVOKE ALL takes column grants with it, so a second run leaves exactly these.
    await manager.query(`REVOKE ALL ON ${quoted(schema)}.${quoted(table)} FROM ${to}`);
    await manager.query(`GRANT ${privileges} ON ${quoted(schema)}.${quoted(table)} TO ${to}`);
  }
};

const ensureRole = async (manager: EntityManager, role: string): Promise<void> => {
  const existing = await manager.query<unknown[]>(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [role]);
  if (existing.length > 0) {
    return;
  }
  try {
    await manager.query(`CREATE ROLE ${quoted(role)} NOLOGIN`);
  } catch (error) {
    throw new AppRoleGrantError(
      `cannot create the app role "${role}" (${(error as Error).message}): create it as a role with CREATEROLE ` +
        `(CREATE ROLE ${quoted(role)} NOLOGIN) or give the migrating role CREATEROLE`,
    );
  }
};

/**
 * Members of the role, at any depth, that own a table of the schema or may act as its owner (a superuser may act as
 * anyone). The role running the migrations is left out: PostgreSQL 16 makes a role's creator a member of it, and the
 * owner holding the app's rights gives the app nothing.
 */
const refuseOwningMembers = async (manager: EntityManager, role: string, schema: string): Promise<void> => {
  const [owning] = await manager.query<{ table: string; owner: string; holder: string }[]>(
    `WITH RECURSIVE holders(oid) AS (
       SELECT oid FROM pg_roles WHERE rolname = $1
       UNION
       SELECT m.member FROM pg_auth_members m JOIN holders h ON m.roleid = h.oid
       WHERE m.member <> (SELECT oid FROM pg_roles WHERE rolname = current_user)
     )
     SELECT c.relname AS table, pg_get_userbyid(c.relowner) AS owner, r.rolname AS holder
     FROM holders h
     JOIN pg_roles r ON r.oid = h.oid
     JOIN pg_class c ON pg_has_role(h.oid, c.relowner, 'USAGE')
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $2 AND c.relkind IN ('r', 'p')
     ORDER BY c.relname, r.rolname
     LIMIT 1`,
    [role, schema],
  );
  if (owning) {
    throw new AppRoleGrantError(
      `role "${owning.holder}" holds the app role "${role}" and can act as the owner ("${owning.owner}") of ` +
        `table "${owning.table}": it could switch the append-only triggers off. Make the tables another role's ` +
        `(as a superuser: REASSIGN OWNED BY ${quoted(owning.owner)} TO <owner>) or revoke that membership`,
    );
  }
};

/**
 * What the role ends up able to do, checked rather than assumed: a GRANT by a role that neither owns a table nor holds
 * a grant option on it only warns, and the role may hold other roles (or PUBLIC may have been granted) more than this.
 */
const refuseWrongGrants = async (manager: EntityManager, role: string, schema: string): Promise<void> => {
  const [missing] = await manager.query<{ table: string }[]>(
    `SELECT c.relname AS table
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $2 AND c.relkind IN ('r', 'p') AND NOT has_table_privilege($1, c.oid, 'SELECT')
     ORDER BY c.relname
     LIMIT 1`,
    [role, schema],
  );
  if (missing) {
    throw new AppRoleGrantError(
      `the app role "${role}" was not granted table "${missing.table}": the role running the migrations ` +
        `neither owns it nor may grant on it`,
    );
  }
  const [excess] = await manager.query<{ table: string }[]>(
    `SELECT t.name AS table FROM unnest($2::text[]) AS t(name)
     WHERE has_table_privilege($1, format('%I.%I', $3::text, t.name), 'UPDATE, DELETE, TRUNCATE, TRIGGER')
     LIMIT 1`,
    [role, restrictedTables.map((r) => r.table), schema],
  );
  if (excess) {
    throw new AppRoleGrantError(
      `the app role "${role}" may still change or unprotect rows of table "${excess.table}" through another ` +
        `grant (a role it holds, or PUBLIC): revoke it`,
    );
  }
};

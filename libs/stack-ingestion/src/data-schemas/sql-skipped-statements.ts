/**
 * Statement kinds a schema dump carries that say nothing about the tables' shape (or that Mirror does not model),
 * recognised by their leading keywords so that no parser needs to understand them: pgsql-ast-parser refuses
 * `CREATE TRIGGER` and `GRANT`, among others. Each is skipped with a warning, never silently.
 */
interface SkippedKind {
  kind: string;
  /** Why skipping it loses nothing the model holds, or what is lost. */
  reason: string;
  /** Matched against the statement's code in upper case, whitespace collapsed to single spaces. */
  pattern: RegExp;
}

const skippedKinds: SkippedKind[] = [
  {
    kind: 'SET / set_config',
    reason: 'session settings',
    pattern: /^(SET|RESET) |^SELECT PG_CATALOG\.SET_CONFIG ?\(/,
  },
  {
    kind: 'ownership (ALTER … OWNER TO)',
    reason: 'roles are not modelled',
    pattern: /^ALTER .* OWNER TO \S+$/,
  },
  {
    kind: 'GRANT / REVOKE',
    reason: 'privileges are not modelled',
    pattern: /^(GRANT|REVOKE) |^ALTER DEFAULT PRIVILEGES /,
  },
  {
    kind: 'CREATE FUNCTION / PROCEDURE',
    reason: 'code in the database is not modelled',
    pattern: /^(CREATE (OR REPLACE )?|ALTER )(FUNCTION|PROCEDURE|AGGREGATE) /,
  },
  {
    kind: 'CREATE TRIGGER',
    reason: 'code in the database is not modelled',
    pattern: /^(CREATE (OR REPLACE )?(CONSTRAINT |EVENT )?|ALTER (EVENT )?)TRIGGER /,
  },
  {
    kind: 'CREATE / ALTER SEQUENCE',
    reason: 'sequences are not modelled',
    pattern: /^(CREATE|ALTER) SEQUENCE |^SELECT PG_CATALOG\.SETVAL ?\(/,
  },
  {
    kind: 'COMMENT ON',
    reason: 'comments are not modelled',
    pattern: /^COMMENT ON /,
  },
  {
    kind: 'CREATE EXTENSION',
    reason: 'extensions are not modelled',
    pattern: /^(CREATE|ALTER) EXTENSION /,
  },
  {
    kind: 'CREATE SCHEMA',
    reason: 'tables are named without their schema',
    pattern: /^(CREATE|ALTER) SCHEMA /,
  },
  {
    kind: 'CREATE VIEW',
    reason: 'views are not served',
    pattern:
      /^(CREATE (OR REPLACE )?(TEMP |TEMPORARY )?(RECURSIVE )?(MATERIALIZED )?|ALTER (MATERIALIZED )?)VIEW |^REFRESH MATERIALIZED VIEW /,
  },
  {
    kind: 'CREATE INDEX',
    reason: 'indexes change speed, not shape',
    pattern: /^(CREATE|ALTER) INDEX /,
  },
  {
    kind: 'CREATE TABLE … PARTITION OF',
    reason: 'a partition holds rows of its parent table, which is modelled',
    pattern: /^CREATE (UNLOGGED )?TABLE (IF NOT EXISTS )?\S+ PARTITION OF /,
  },
  {
    kind: 'EXCLUDE constraint',
    reason: 'exclusion constraints are not modelled',
    pattern: /^ALTER TABLE (IF EXISTS )?(ONLY )?\S+ ADD (CONSTRAINT \S+ )?EXCLUDE /,
  },
  {
    kind: 'CREATE TYPE / DOMAIN',
    reason: 'user-defined types are not modelled; columns keep the type name',
    pattern: /^(CREATE|ALTER) (TYPE|DOMAIN) /,
  },
  {
    kind: 'ALTER TABLE (storage, partitioning, row security, triggers)',
    reason: 'these do not change the columns or keys',
    pattern:
      /^ALTER TABLE (IF EXISTS )?(ONLY )?\S+ (ATTACH PARTITION|DETACH PARTITION|CLUSTER ON|REPLICA IDENTITY|SET \(|RESET \(|SET (LOGGED|UNLOGGED|WITHOUT|TABLESPACE|ACCESS METHOD)|(NO )?INHERIT|(ENABLE|DISABLE|FORCE|NO FORCE) (ALWAYS |REPLICA )?(ROW LEVEL SECURITY|TRIGGER|RULE)|ALTER COLUMN \S+ SET (STATISTICS|STORAGE|COMPRESSION))\b/,
  },
  {
    kind: 'other database objects',
    reason: 'not modelled',
    pattern:
      /^(CREATE|ALTER) (OR REPLACE )?(COLLATION|CAST|OPERATOR|TEXT SEARCH|CONVERSION|(TRUSTED |PROCEDURAL )*LANGUAGE|PUBLICATION|SUBSCRIPTION|SERVER|FOREIGN DATA WRAPPER|USER MAPPING|POLICY|RULE|STATISTICS|ROLE|USER|GROUP|TABLESPACE|ACCESS METHOD|DATABASE|LARGE OBJECT) |^SECURITY LABEL /,
  },
  {
    kind: 'DROP',
    reason: 'a dump made with --clean drops before it creates',
    pattern: /^DROP /,
  },
  {
    kind: 'transaction control',
    reason: 'not DDL',
    pattern: /^(BEGIN|COMMIT|END|START TRANSACTION|ROLLBACK)( |$)/,
  },
];

const normalise = (code: string): string => code.replace(/\s+/g, ' ').trim().toUpperCase();

export const metaCommandKind = {
  kind: 'psql meta-command',
  reason: 'psql instructions (such as \\restrict), not SQL',
} as const;

/** The skipped kind this statement is, or undefined when it must be read (or is not known). */
export const skippedKindOf = (code: string): Omit<SkippedKind, 'pattern'> | undefined => {
  const head = normalise(code);
  const found = skippedKinds.find((k) => k.pattern.test(head));
  return found ? { kind: found.kind, reason: found.reason } : undefined;
};

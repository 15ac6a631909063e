import * as fs from 'node:fs';
import * as path from 'node:path';

import { IngestionError, IngestionProblem, MemoryBundle } from '@libs/bundle-documents';

import { readSqlEntities } from './sql-ddl-entities';
import { splitSqlStatements } from './sql-statements';

/** Real `pg_dump --schema-only` output; see the script beside it. */
const dumpFile = 'schema.sql';
const dump = fs.readFileSync(path.resolve(__dirname, '../../../../test/support/pg-dump/schema-only.sql'), 'utf8');

const read = (sql: string, file = dumpFile): ReturnType<typeof readSqlEntities> =>
  readSqlEntities(new MemoryBundle('test', new Map([[file, Buffer.from(sql)]])), [file]);

const refusal = (sql: string): IngestionProblem[] => {
  try {
    read(sql);
  } catch (error) {
    if (error instanceof IngestionError) {
      return error.problems;
    }
    throw error;
  }
  throw new Error('the SQL was accepted');
};

const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

describe(readSqlEntities.name, () => {
  describe('pg_dump --schema-only output', () => {
    it('keeps the keys pg_dump adds with ALTER TABLE ONLY … ADD CONSTRAINT', () => {
      const sut = read(dump);
      const entity = (name: string) => sut.entities.find((e) => e.name === name);
      expect(sut.entities.map((e) => e.name).sort()).toEqual([
        'bookings',
        'changes',
        'customers',
        'invoice_lines',
        'invoices',
        'payments',
        'visits',
        'visits_2026',
      ]);
      expect(entity('customers')).toMatchObject({ primaryKey: ['id'], uniqueKeys: [['email']] });
      expect(entity('invoices')).toMatchObject({ primaryKey: ['id'], uniqueKeys: [['number']] });
      expect(entity('invoice_lines')?.primaryKey).toEqual(['invoice_id', 'line_no']);
      expect(entity('changes')?.primaryKey).toEqual(['id']);
      expect(sut.relations).toEqual(
        expect.arrayContaining([
          {
            from: { entity: 'invoices', fields: ['customer_id'] },
            to: { entity: 'customers', fields: ['id'] },
            origin: 'declared',
          },
          {
            from: { entity: 'invoice_lines', fields: ['invoice_id'] },
            to: { entity: 'invoices', fields: ['id'] },
            origin: 'declared',
          },
        ]),
      );
      // Newer syntax around the keys (identity, DEFERRABLE, NULLS NOT DISTINCT, partitions) does not hide them.
      expect(entity('payments')).toMatchObject({ primaryKey: ['id'], uniqueKeys: [['reference']] });
      expect(entity('visits')?.primaryKey).toEqual(['id', 'visited_on']);
      expect(entity('bookings')?.primaryKey).toEqual(['id']);
      expect(sut.relations).toEqual(
        expect.arrayContaining([
          {
            from: { entity: 'payments', fields: ['invoice_id'] },
            to: { entity: 'invoices', fields: ['id'] },
            origin: 'declared',
          },
          {
            from: { entity: 'visits', fields: ['customer_id'] },
            to: { entity: 'customers', fields: ['id'] },
            origin: 'declared',
          },
        ]),
      );
      expect(sut.relations).toHaveLength(4);
      expect(entity('invoices')?.fields.find((f) => f.name === 'status')).toEqual({
        name: 'status',
        type: 'text',
        required: true,
        nullable: false,
        default: { value: 'open' },
      });
    });

    it('keeps the defaults pg_dump sets with ALTER COLUMN, so the data twin knows which keys number themselves', () => {
      const sut = read(dump);
      const id = (table: string) => sut.entities.find((e) => e.name === table)?.fields.find((f) => f.name === 'id');
      expect(id('customers')?.default).toEqual({
        expression: expect.stringMatching(/^nextval\(.*customers_id_seq/) as string,
      });
      expect(id('payments')?.default).toEqual({ expression: 'generated identity' });
    });

    it('warns once per skipped kind, at its first line, and names every kind the dump holds', () => {
      const sut = read(dump);
      const byKind = (kind: string) =>
        sut.warnings.filter(
          (w) =>
            / statements?( \(lines [\d, …]+\))?: /.test(w.message.split(kind)[1] ?? '') &&
            /^skipped \d+ $/.test(w.message.split(kind)[0]),
        );
      const expectations: [string, string][] = [
        ['psql meta-command', '\\restrict'],
        ['SET / set_config', 'SET statement_timeout'],
        ['CREATE SCHEMA', 'CREATE SCHEMA audit'],
        ['ownership (ALTER … OWNER TO)', 'ALTER SCHEMA audit OWNER TO'],
        ['CREATE EXTENSION', 'CREATE EXTENSION'],
        ['COMMENT ON', 'COMMENT ON EXTENSION'],
        ['CREATE FUNCTION / PROCEDURE', 'CREATE FUNCTION'],
        ['CREATE / ALTER SEQUENCE', 'CREATE SEQUENCE'],
        ['CREATE TYPE / DOMAIN', 'CREATE TYPE'],
        ['ALTER TABLE (storage, partitioning, row security, triggers)', 'ATTACH PARTITION'],
        ['EXCLUDE constraint', 'ALTER TABLE ONLY public.bookings\n    ADD CONSTRAINT bookings_during_excl'],
        ['CREATE VIEW', 'CREATE VIEW'],
        ['CREATE INDEX', 'CREATE INDEX'],
        ['CREATE TRIGGER', 'CREATE TRIGGER'],
        ['GRANT / REVOKE', 'REVOKE ALL'],
      ];
      for (const [kind, firstText] of expectations) {
        const found = byKind(kind);
        expect({ kind, count: found.length }).toEqual({ kind, count: 1 });
        expect({ kind, line: found[0].line, location: found[0].location }).toEqual({
          kind,
          line: lineOf(dump, firstText),
          location: `${dumpFile}:${lineOf(dump, firstText)}`,
        });
      }
      expect(sut.warnings).toHaveLength(expectations.length);
      expect(byKind('GRANT / REVOKE')[0].message).toMatch(
        /^skipped 4 GRANT \/ REVOKE statements \(lines \d+, \d+, \d+, \d+\): privileges/,
      );
    });
  });

  it('reads keys added by ALTER TABLE exactly as the same keys declared inline', () => {
    const inline = read(`
      CREATE TABLE a (id int PRIMARY KEY, code text UNIQUE, pair_x int, pair_y int, UNIQUE (pair_x, pair_y));
      CREATE TABLE b (id int, a_id int REFERENCES a(id), PRIMARY KEY (id));
    `);
    const altered = read(`
      CREATE TABLE a (id int, code text, pair_x int, pair_y int);
      CREATE TABLE b (id int, a_id int);
      ALTER TABLE ONLY a ADD CONSTRAINT a_pkey PRIMARY KEY (id);
      ALTER TABLE a ADD CONSTRAINT a_code_key UNIQUE (code), ADD UNIQUE (pair_x, pair_y);
      ALTER TABLE ONLY b ADD CONSTRAINT b_pkey PRIMARY KEY (id);
      ALTER TABLE ONLY b ADD CONSTRAINT b_a_fkey FOREIGN KEY (a_id) REFERENCES a(id);
    `);
    expect(altered.entities).toEqual(inline.entities);
    expect(altered.relations).toEqual(inline.relations);
    expect(inline.entities[0]).toMatchObject({ primaryKey: ['id'], uniqueKeys: [['code'], ['pair_x', 'pair_y']] });
  });

  it('counts a unique index on plain columns as a unique key, but an index on an expression as speed', () => {
    const sut = read(`
      CREATE TABLE a (id int PRIMARY KEY, email text);
            CREATE UNIQUE INDEX a_email ON a (email);
      CREATE UNIQUE INDEX a_lower_email ON a (lower(email));
    `);
    expect(sut.entities[0].uniqueKeys).toEqual([['email']]);
    expect(sut.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^skipped 1 CREATE INDEX statement:/)]);
  });

  it('keeps words of those clauses inside quoted names and strings', () => {
    const sut = read(
      `CREATE TABLE "deferrable" ("not valid" text DEFAULT 'initially deferred', id int);\n` +
        'ALTER TABLE "deferrable" ADD CONSTRAINT k UNIQUE ("not valid") DEFERRABLE INITIALLY IMMEDIATE;\n',
    );
    expect(sut.entities[0]).toMatchObject({ name: 'deferrable', uniqueKeys: [['not valid']] });
    expect(sut.entities[0].fields.map((f) => f.name)).toEqual(['not valid', 'id']);
  });

  describe('refuses, at the line', () => {
    it('a malformed statement among skipped ones, after a dollar-quoted body full of semicolons', () => {
      const sql = `${dump}\nCREATE TABLE broken (\n  id int,,\n);\n`;
      expect(refusal(sql)).toEqual([
        {
          file: dumpFile,
          line: lineOf(sql, 'CREATE TABLE broken') + 1,
          pointer: '',
          message: 'invalid SQL: Unexpected comma token: ","',
        },
      ]);
    });

    it('a statement of no kind it knows', () => {
      const sql = 'CREATE TABLE a (id int);\n\nFROBNICATE the tables;\n';
      expect(refusal(sql)).toEqual([
        {
          file: dumpFile,
          line: 3,
          pointer: '',
          message: expect.stringMatching(/^invalid SQL: Unexpected word token: "the"$/),
        },
      ]);
    });

    it('an unterminated dollar-quoted body, where it opens', () => {
      const sql = 'CREATE TABLE a (id int);\nCREATE FUNCTION f() RETURNS int AS $body$\nSELECT 1;\n';
      expect(refusal(sql)).toEqual([
        { file: dumpFile, line: 2, pointer: '', message: 'invalid SQL: unterminated dollar-quoted string $body$' },
      ]);
    });

    it('a key added to a table nobody created, or on a column it does not have', () => {
      expect(
        refusal('CREATE TABLE a (id int);\nALTER TABLE ONLY public.b\n  ADD CONSTRAINT b_pkey PRIMARY KEY (id);\n'),
      ).toEqual([
        {
          file: dumpFile,
          line: 2,
          pointer: '',
          message: 'ALTER TABLE names table "b", which no CREATE TABLE before it declares',
        },
      ]);
      expect(
        refusal('CREATE TABLE a (id int);\nALTER TABLE ONLY a\n  ADD CONSTRAINT a_pkey PRIMARY KEY (ident);\n'),
      ).toEqual([{ file: dumpFile, line: 3, pointer: '', message: 'table "a" has no column "ident"' }]);
    });

    it('a foreign key added by ALTER TABLE to an unknown table', () => {
      expect(
        refusal(
          'CREATE TABLE a (id int, c_id int);\nALTER TABLE ONLY a\n  ADD CONSTRAINT a_c FOREIGN KEY (c_id) REFERENCES c(id);\n',
        ),
      ).toEqual([
        { file: dumpFile, line: 3, pointer: '', message: 'foreign key from a(c_id) references unknown table "c"' },
      ]);
    });
  });
});

describe(splitSqlStatements.name, () => {
  it('ends statements only at top-level semicolons', () => {
    const sql = [
      "SELECT 'a;b', E'it\\'s;', 'don''t;';",
      'CREATE TABLE "odd;name" (x int); -- trailing; comment',
      '/* outer /* nested; */ still comment; */ CREATE FUNCTION f() RETURNS int AS $fn$ SELECT 1; $inner$;$inner$ $fn$;',
      'SELECT $1, a$b;',
      '\\connect db',
      'SELECT 2',
    ].join('\n');
    const sut = splitSqlStatements(sql).map((s) => ({ code: s.code.replace(/\s+/g, ' ').trim(), meta: s.metaCommand }));
    expect(sut).toEqual([
      { code: "SELECT 'a;b', E'it\\'s;', 'don''t;'", meta: false },
      { code: 'CREATE TABLE "odd;name" (x int)', meta: false },
      { code: 'CREATE FUNCTION f() RETURNS int AS $fn$ SELECT 1; $inner$;$inner$ $fn$', meta: false },
      { code: 'SELECT $1, a$b', meta: false },
      { code: '\\connect db', meta: true },
      { code: 'SELECT 2', meta: false },
    ]);
  });
});

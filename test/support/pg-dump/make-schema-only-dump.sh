#!/usr/bin/env bash
# Regenerates schema-only.sql: real `pg_dump --schema-only` output for the DDL reader's tests. Starts a throwaway
# PostgreSQL cluster in a temporary folder on a free port, creates a small schema with what real dumps carry (serial
# ids, foreign keys, a unique constraint, a trigger and its function, grants, a view, an index, comments, an
# extension, a second schema, and what newer schemas use: identity columns, deferrable and NOT VALID constraints,
# NULLS NOT DISTINCT, storage parameters, partitions, an exclusion constraint, an enum type), dumps it, and removes the cluster.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}"
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cleanup() { as_owner "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
# PostgreSQL refuses to run as root; as root, run it as the postgres user (as the test services do).
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
as_owner "$bin/initdb" -D "$work/data" -U postgres --auth=trust >/dev/null
as_owner "$bin/pg_ctl" -D "$work/data" -o "-p $port -k $work -c listen_addresses=''" -l "$work/log" -w start >/dev/null
psql() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p "$port" -U postgres "$@"; }
psql -d postgres -c 'CREATE DATABASE records'
psql -d records <<'SQL'
CREATE ROLE clerk NOLOGIN;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE SCHEMA audit;

CREATE TABLE customers (
  id serial,
  email text NOT NULL,
  full_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE customers ADD PRIMARY KEY (id);
ALTER TABLE customers ADD CONSTRAINT customers_email_key UNIQUE (email);

CREATE TABLE invoices (
  id bigserial PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customers(id),
  number text NOT NULL UNIQUE,
  amount numeric(12, 2) NOT NULL CHECK (amount >= 0),
  status text NOT NULL DEFAULT 'open',
  issued_on date NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE invoice_lines (
  invoice_id bigint NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  line_no integer NOT NULL,
  description text NOT NULL,
  amount numeric(12, 2) NOT NULL,
  PRIMARY KEY (invoice_id, line_no)
);

CREATE TABLE audit.changes (
  id bigserial PRIMARY KEY,
  table_name text NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TYPE payment_state AS ENUM ('pending', 'settled', 'refunded');
CREATE TABLE payments (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  invoice_id bigint NOT NULL REFERENCES invoices(id) DEFERRABLE INITIALLY DEFERRED,
  amount numeric(12, 2) NOT NULL,
  state payment_state NOT NULL DEFAULT 'pending',
  reference text,
  UNIQUE NULLS NOT DISTINCT (reference)
) WITH (fillfactor = 70);
ALTER TABLE payments ADD CONSTRAINT payments_amount_positive CHECK (amount > 0) NOT VALID;

CREATE TABLE visits (
  id bigint NOT NULL,
  visited_on date NOT NULL,
  customer_id integer NOT NULL REFERENCES customers(id),
  PRIMARY KEY (id, visited_on)
) PARTITION BY RANGE (visited_on);
CREATE TABLE visits_2026 PARTITION OF visits FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');

CREATE TABLE bookings (
  id serial PRIMARY KEY,
  during tsrange NOT NULL,
  EXCLUDE USING gist (during WITH &&)
);

CREATE INDEX invoices_customer_idx ON invoices (customer_id);

CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- a semicolon inside a dollar-quoted body; must not end the statement
  NEW.updated_at := now();
  RETURN NEW;
END;
$$;
CREATE TRIGGER invoices_touch BEFORE UPDATE ON invoices FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE VIEW open_invoices AS SELECT id, customer_id, amount FROM invoices WHERE status = 'open';

COMMENT ON TABLE invoices IS 'Invoices; one per bill sent';
COMMENT ON COLUMN invoices.status IS 'open, paid or disputed';

GRANT SELECT ON invoices, invoice_lines TO clerk;
GRANT SELECT, UPDATE (status) ON invoices TO clerk;
REVOKE ALL ON FUNCTION touch_updated_at() FROM PUBLIC;
SQL
{
  echo "-- Real \`pg_dump --schema-only\` output, the DDL reader's test fixture. Made by $(basename "$0") beside this file"
  echo "-- with $("$bin/pg_dump" --version); regenerate with that script rather than editing by hand."
  "$bin/pg_dump" --schema-only -h "$work" -p "$port" -U postgres records
} >"$here/schema-only.sql"
echo "wrote $here/schema-only.sql"

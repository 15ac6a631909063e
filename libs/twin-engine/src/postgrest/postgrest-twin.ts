import type { ServiceModel, StackModel } from '@libs/stack-ingestion';
import { hashSeed, rowKey, seededUuid, WorldRecord } from '@libs/synthetic-data';

import type { Outcome } from '../crud-behaviour';
import type { EpisodeEvent } from '../episode-events';
import type { PackBehaviour, PackCall, TwinPack } from '../packs/twin-pack';
import { emptyResponse } from '../twin-http';
import { callerOf, claimOf, postgrestToken, presented } from './postgrest-auth';
import { PostgrestFault } from './postgrest-fault';
import { TableConstraints } from './postgrest-constraints';
import { readRows } from './postgrest-reads';
import { represent } from './postgrest-representation';
import { Row, RowReader, valuesKey } from './postgrest-rows';
import { Filter, isEmbeddedKey, matchesAll, parseFilters } from './postgrest-filters';
import { columnsOf, Preferences, preferencesOf, representationOf } from './postgrest-request';
import { Selection } from './postgrest-select';
import { Column, Table, TableCatalogue } from './postgrest-tables';
import { fromJson } from './postgrest-values';

const failed = (fault: PostgrestFault, headers: Record<string, string> = {}): Outcome => ({
  response: fault.response(headers),
  events: [],
});

/** PostgreSQL's default for a column the request leaves out: the DDL's `DEFAULT`, a serial's next value, or NULL. */
const defaultFor = (column: Column, call: PackCall, index: number, next: () => number): unknown => {
  const declared = column.default;
  if (declared && 'value' in declared) {
    return declared.value;
  }
  const expression = declared && 'expression' in declared ? declared.expression.toLowerCase() : '';
  if (column.serial) {
    return next();
  }
  if (
    /\bnow\s*\(|current_timestamp|localtimestamp|statement_timestamp|clock_timestamp|transaction_timestamp/.test(
      expression,
    )
  ) {
    return column.kind === 'date' ? call.now.slice(0, 10) : call.now;
  }
  if (/current_date/.test(expression)) {
    return call.now.slice(0, 10);
  }
  if (/uuid/.test(expression)) {
    return seededUuid(hashSeed(call.seq, call.service, index));
  }
  return null;
};

/** A data service's writes, with PostgREST's headers, status codes and errors and PostgreSQL's constraints. */
class TableWrites {
  readonly catalogue: TableCatalogue;

  private readonly constraints: TableConstraints;

  constructor(model: StackModel, service: ServiceModel) {
    this.catalogue = new TableCatalogue(model, service);
    this.constraints = new TableConstraints(this.catalogue);
  }

  private filtered(reader: RowReader, table: Table, filters: Filter[]): Row[] {
    return reader.rows(table).filter(({ record }) => matchesAll(filters, record));
  }

  private body(call: PackCall): unknown {
    const type = call.request.headers['content-type'];
    if (type !== undefined && !/json/i.test(type)) {
      throw new PostgrestFault(415, 'PGRST102', `Content-Type not acceptable: ${type.slice(0, 100)}`);
    }
    try {
      return JSON.parse(call.request.body?.toString('utf8') ?? '') as unknown;
    } catch {
      throw new PostgrestFault(400, 'PGRST102', 'Empty or invalid json');
    }
  }

  private checkColumns(table: Table, names: Iterable<string>): void {
    for (const name of names) {
      if (!table.columns.has(name)) {
        throw new PostgrestFault(
          400,
          'PGRST204',
          `Could not find the '${name}' column of '${table.name}' in the schema cache`,
        );
      }
    }
  }

  private conflictColumns(call: PackCall, table: Table): string[] {
    const named = columnsOf(call.request.query.get('on_conflict'));
    if (named) {
      this.checkColumns(table, named);
      return named;
    }
    return table.primaryKey;
  }

  private written(
    call: PackCall,
    reader: RowReader,
    table: Table,
    rows: WorldRecord[],
    prefer: Preferences,
    status: number,
    events: EpisodeEvent[],
  ): Outcome {
    const representation = representationOf(call.request.headers.accept);
    const selection = Selection.parse(this.catalogue, table, call.request.query);
    if (representation.kind === 'object' && rows.length !== 1) {
      // PostgREST runs the write in a transaction and rolls it back: nothing changes.
      represent(rows, representation, status, {});
    }
    const headers: Record<string, string> = {
      'content-range': `*/${prefer.count ? rows.length : '*'}`,
      ...(prefer.return !== 'minimal' || call.request.headers.prefer?.includes('return=minimal')
        ? { 'preference-applied': `return=${prefer.return}` }
        : {}),
    };
    if (prefer.return !== 'representation') {
      return { response: emptyResponse(status === 201 ? 201 : 204, headers), events };
    }
    return {
      response: represent(
        rows.map((row) => selection.project(row, reader)),
        representation,
        status === 201 ? 201 : 200,
        headers,
      ),
      events,
    };
  }

  private maxAffected(prefer: Preferences, affected: number): void {
    if (prefer.strict && prefer.maxAffected !== undefined && affected > prefer.maxAffected) {
      throw new PostgrestFault(
        400,
        'PGRST124',
        'Query result exceeds max-affected preference constraint',
        `The query affects ${affected} rows`,
      );
    }
  }

  insert(call: PackCall, table: Table): Outcome {
    const prefer = preferencesOf(call.request.headers.prefer);
    const body = this.body(call);
    const objects = Array.isArray(body) ? body : [body];
    if (objects.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) {
      throw new PostgrestFault(400, 'PGRST102', 'All object keys must match', 'every row must be a JSON object');
    }
    const items = objects as Record<string, unknown>[];
    const named = columnsOf(call.request.query.get('columns'));
    const first = Object.keys(items[0] ?? {}).sort();
    if (!named && items.some((item) => Object.keys(item).sort().join('\u0000') !== first.join('\u0000'))) {
      throw new PostgrestFault(400, 'PGRST102', 'All object keys must match');
    }
    const given = new Set(named ?? first);
    this.checkColumns(table, given);
    const conflict = this.conflictColumns(call, table);
    const reader = new RowReader(call.state);
    let serial = 0;
    const next = (column: Column): number => {
      if (serial === 0) {
        serial = Math.max(0, ...reader.rows(table).map(({ record }) => Number(record[column.name]) || 0));
      }
      return ++serial;
    };
    const created: Row[] = [];
    const updated: Row[] = [];
    // This call's rows by their conflict key and primary key: a second row with the same key is a duplicate.
    const written = new Map<string, Row>();
    const writtenKeys = new Set<string>();
    items.forEach((item, index) => {
      const record: WorldRecord = {};
      for (const column of table.columns.values()) {
        record[column.name] =
          given.has(column.name) && (column.name in item || !prefer.missingDefault)
            ? fromJson(column, item[column.name] ?? null)
            : defaultFor(column, call, index, () => next(column));
      }
      const conflictValues = conflict.map((column) => record[column]);
      const conflictKey = conflict.length > 0 ? valuesKey(conflictValues) : undefined;
      if (conflictKey !== undefined && written.has(conflictKey)) {
        throw this.constraints.duplicate(table, conflict, record);
      }
      const clash = conflictKey === undefined ? undefined : reader.lookup(table, conflict, conflictValues)[0];
      if (clash) {
        if (prefer.resolution === 'ignore-duplicates') {
          return;
        }
        if (prefer.resolution !== 'merge-duplicates') {
          throw this.constraints.duplicate(table, conflict, record);
        }
        const merged = { ...clash.record };
        for (const name of given) {
          merged[name] = record[name];
        }
        this.constraints.notNull(table, merged);
        const row = { id: clash.id, record: merged };
        updated.push(row);
        written.set(conflictKey as string, row);
        return;
      }
      this.constraints.notNull(table, record);
      const primaryValues = table.primaryKey.map((column) => record[column]);
      const primaryKey = table.primaryKey.length > 0 ? valuesKey(primaryValues) : undefined;
      if (
        primaryKey !== undefined &&
        conflict !== table.primaryKey &&
        (writtenKeys.has(primaryKey) || reader.lookup(table, table.primaryKey, primaryValues).length > 0)
      ) {
        throw this.constraints.duplicate(table, table.primaryKey, record);
      }
      let id = rowKey(table.primaryKey, record) ?? `n${call.seq}-${index}`;
      if (call.state.get(table.key, id) !== undefined) {
        // A key patched away from its first value frees the value but not the row's id.
        id = `${id}#${call.seq}-${index}`;
      }
      const row = { id, record };
      created.push(row);
      if (conflictKey !== undefined) {
        written.set(conflictKey, row);
      }
      if (primaryKey !== undefined) {
        writtenKeys.add(primaryKey);
      }
    });
    const pending = [...created, ...updated].map(({ record }) => record);
    for (const record of pending) {
      this.constraints.references(reader, table, record, pending);
    }
    this.maxAffected(prefer, pending.length);
    const events: EpisodeEvent[] = [
      ...created.map(({ id, record }): EpisodeEvent => ({ type: 'record.created', table: table.key, id, record })),
      ...updated.map(({ id, record }): EpisodeEvent => ({ type: 'record.updated', table: table.key, id, record })),
    ];
    return this.written(call, reader, table, pending, prefer, 201, events);
  }

  /** A write's filters: on its own table only (PostgREST filters no embedded resource in an UPDATE or DELETE). */
  private writeFilters(table: Table, query: URLSearchParams): Filter[] {
    const embedded = [...query.keys()].find(isEmbeddedKey);
    if (embedded !== undefined) {
      throw new PostgrestFault(
        400,
        'PGRST100',
        `failed to parse filter (${embedded.slice(0, 100)})`,
        'a write filters its own table only',
      );
    }
    return parseFilters(table, query);
  }

  /** Supabase's safeguard (pg-safeupdate): an UPDATE or DELETE of a whole table is refused. */
  private whereRequired(verb: 'UPDATE' | 'DELETE', filters: Filter[]): void {
    if (filters.length === 0) {
      throw new PostgrestFault(400, '21000', `${verb} requires a WHERE clause`, null, 'add a filter such as ?id=eq.1');
    }
  }

  update(call: PackCall, table: Table): Outcome {
    const prefer = preferencesOf(call.request.headers.prefer);
    const filters = this.writeFilters(table, call.request.query);
    const body = this.body(call);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PostgrestFault(400, 'PGRST102', 'Empty or invalid json', 'a PATCH body is one JSON object');
    }
    const changes = body as Record<string, unknown>;
    this.checkColumns(table, Object.keys(changes));
    this.whereRequired('UPDATE', filters);
    const typed = Object.fromEntries(
      Object.entries(changes).map(([name, value]) => [name, fromJson(table.columns.get(name) as Column, value)]),
    );
    const reader = new RowReader(call.state);
    const targets = this.filtered(reader, table, filters);
    const targetIds = new Set(targets.map(({ id }) => id));
    const changed = targets.map(({ id, record }) => ({ id, before: record, record: { ...record, ...typed } }));
    const keyMoves = changed.filter(
      ({ before, record }) =>
        valuesKey(table.primaryKey.map((c) => before[c])) !== valuesKey(table.primaryKey.map((c) => record[c])),
    );
    const movedTo = new Set<string>();
    for (const { record } of keyMoves) {
      const values = table.primaryKey.map((column) => record[column]);
      const key = valuesKey(values);
      const taken = reader.lookup(table, table.primaryKey, values).some(({ id }) => !targetIds.has(id));
      if (key !== undefined && (taken || movedTo.has(key))) {
        throw this.constraints.duplicate(table, table.primaryKey, record);
      }
      if (key !== undefined) {
        movedTo.add(key);
      }
    }
    if (keyMoves.length > 0) {
      this.constraints.unreferenced(
        reader,
        table,
        keyMoves.map(({ before }) => before),
        new Set(),
      );
    }
    for (const { record } of changed) {
      this.constraints.notNull(table, record);
      this.constraints.references(
        reader,
        table,
        record,
        changed.map((row) => row.record),
      );
    }
    this.maxAffected(prefer, changed.length);
    const events = changed.map(({ id, record }): EpisodeEvent => ({
      type: 'record.updated',
      table: table.key,
      id,
      record,
    }));
    return this.written(
      call,
      reader,
      table,
      changed.map(({ record }) => record),
      prefer,
      200,
      events,
    );
  }

  remove(call: PackCall, table: Table): Outcome {
    const prefer = preferencesOf(call.request.headers.prefer);
    const filters = this.writeFilters(table, call.request.query);
    this.whereRequired('DELETE', filters);
    const reader = new RowReader(call.state);
    const targets = this.filtered(reader, table, filters);
    this.constraints.unreferenced(
      reader,
      table,
      targets.map(({ record }) => record),
      new Set(targets.map(({ id }) => id)),
    );
    this.maxAffected(prefer, targets.length);
    const events = targets.map(({ id }): EpisodeEvent => ({ type: 'record.deleted', table: table.key, id }));
    return this.written(
      call,
      reader,
      table,
      targets.map(({ record }) => record),
      prefer,
      200,
      events,
    );
  }
}

/** A fault found anywhere in a call is its answer; nothing was written. */
const answering =
  (work: (call: PackCall) => Outcome): PackBehaviour =>
  (call) => {
    try {
      return work(call);
    } catch (error) {
      if (error instanceof PostgrestFault) {
        return failed(error);
      }
      throw error;
    }
  };

const errorCodes: Record<string, { status?: number; code: string }> = {
  unknown_method: { code: 'PGRST205' },
  method_not_allowed: { status: 405, code: 'PGRST117' },
};

/**
 * The twin of a data service (`schema:` in mirror.yaml) as a pack the engine runs like the built-in ones: every call
 * needs the episode's token (a JWT-shaped bearer or `apikey`), writes are record events attributed to the caller,
 * and the tables' rows are the world's, seeded from the data schemas.
 */
export const postgrestTwin = (model: StackModel, service: ServiceModel): TwinPack => {
  const tables = new TableWrites(model, service);
  const behaviours: Record<string, PackBehaviour> = {};
  for (const table of tables.catalogue.tables.values()) {
    behaviours[`get_${table.name}`] = answering((call) => readRows(tables.catalogue, call, table, false));
    behaviours[`head_${table.name}`] = answering((call) => readRows(tables.catalogue, call, table, true));
    behaviours[`post_${table.name}`] = answering((call) => tables.insert(call, table));
    behaviours[`patch_${table.name}`] = answering((call) => tables.update(call, table));
    behaviours[`delete_${table.name}`] = answering((call) => tables.remove(call, table));
  }
  return {
    name: 'postgrest',
    seed: () => ({}),
    behaviours,
    guard: (call) => {
      if (callerOf(call) !== undefined) {
        return undefined;
      }
      const fault =
        presented(call) === undefined
          ? new PostgrestFault(401, 'PGRST302', 'Anonymous access is disabled', null, 'send a bearer token')
          : new PostgrestFault(401, 'PGRST301', 'JWSError JWSInvalidSignature');
      return failed(fault, { 'www-authenticate': 'Bearer' });
    },
    principal: callerOf,
    presentedCredential: (call) => {
      const token = presented(call);
      if (token === undefined) {
        return undefined;
      }
      const claimed = claimOf(token).sub;
      return claimed !== undefined ? { claimed } : {};
    },
    token: (principal, credentials) => postgrestToken(credentials, principal),
    agentPrincipal: (company) => company.agent.id,
    errorResponse: (status, code, message) => {
      const known = errorCodes[code];
      const text =
        code === 'unknown_method'
          ? `Could not find the table '${message.replace(/^\//, '')}' in the schema cache`
          : message;
      return new PostgrestFault(known?.status ?? status, known?.code ?? code, text).response();
    },
  };
};

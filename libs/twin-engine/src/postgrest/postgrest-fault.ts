import { jsonResponse, TwinResponse } from '../twin-http';

/**
 * An error as PostgREST answers it: `{ code, message, details, hint }`, with PostgREST's own codes (`PGRST100` for
 * a query it cannot parse) or PostgreSQL's SQLSTATE (`42703` for an unknown column), so clients that branch on
 * `error.code` behave as they do against the real server.
 */
export class PostgrestFault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
  ) {
    super(message);
  }

  response(headers: Record<string, string> = {}): TwinResponse {
    return jsonResponse(
      this.status,
      { code: this.code, message: this.message, details: this.details, hint: this.hint },
      { 'content-type': 'application/json; charset=utf-8', ...headers },
    );
  }
}

export const parseFault = (what: string, details: string): PostgrestFault =>
  new PostgrestFault(400, 'PGRST100', `failed to parse ${what}`, details);

export const unknownColumn = (table: string, column: string): PostgrestFault =>
  new PostgrestFault(400, '42703', `column ${table}.${column} does not exist`);

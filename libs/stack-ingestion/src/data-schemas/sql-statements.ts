/** One statement of a SQL file, as PostgreSQL's own lexer would cut it. */
export interface SqlStatement {
  /** The statement without its `;`, comments blanked out with spaces so offsets still match the file. */
  code: string;
  /** Offset in the file of the statement's first character (after leading blanks and comments). */
  offset: number;
  /** A psql meta-command line (`\connect`, `\restrict` in recent pg_dump output), not SQL. */
  metaCommand: boolean;
}

/** A lexical error: where the unterminated string, identifier or comment began. */
export class SqlLexicalError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const identifierChar = /[A-Za-z0-9_$\u0080-\uffff]/;
const dollarTag = /\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

const blank = (text: string): string => text.replace(/[^\n]/g, ' ');

/**
 * Cuts a SQL file into statements at top-level semicolons. A semicolon inside a string, a quoted identifier, a
 * comment (block comments nest, as in PostgreSQL) or a dollar-quoted body (`$$ … $$`, `$fn$ … $fn$`: function
 * bodies in every pg_dump) does not end a statement. Fails with the offset of anything left unterminated.
 */
export const splitSqlStatements = (text: string): SqlStatement[] => {
  const statements: SqlStatement[] = [];
  let code = '';
  let start: number | undefined;
  let i = 0;
  const emit = (metaCommand: boolean): void => {
    if (start !== undefined) {
      statements.push({ code: code.trimEnd(), offset: start, metaCommand });
    }
    code = '';
    start = undefined;
  };
  const take = (end: number, asCode: boolean): void => {
    const piece = text.slice(i, end);
    if (start !== undefined) {
      code += asCode ? piece : blank(piece);
    }
    i = end;
  };
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    if (start === undefined && /\s/.test(char)) {
      i++;
    } else if (char === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      take(end === -1 ? text.length : end, false);
    } else if (char === '/' && next === '*') {
      let depth = 0;
      let j = i;
      while (j < text.length) {
        if (text.startsWith('/*', j)) {
          depth++;
          j += 2;
        } else if (text.startsWith('*/', j)) {
          depth--;
          j += 2;
          if (depth === 0) {
            break;
          }
        } else {
          j++;
        }
      }
      if (depth > 0) {
        throw new SqlLexicalError('unterminated /* comment', i);
      }
      take(j, false);
    } else if (start === undefined && char === '\\') {
      const end = text.indexOf('\n', i);
      start = i;
      take(end === -1 ? text.length : end, true);
      emit(true);
    } else if (char === ';') {
      emit(false);
      i++;
    } else {
      start ??= i;
      if (char === "'" || char === '"') {
        take(quotedEnd(text, i), true);
      } else if (char === '$' && (i === 0 || !identifierChar.test(text[i - 1]))) {
        dollarTag.lastIndex = i;
        const tag = dollarTag.exec(text)?.[0];
        if (tag) {
          const close = text.indexOf(tag, i + tag.length);
          if (close === -1) {
            throw new SqlLexicalError(`unterminated dollar-quoted string ${tag}`, i);
          }
          take(close + tag.length, true);
        } else {
          take(i + 1, true);
        }
      } else {
        take(i + 1, true);
      }
    }
  }
  emit(false);
  return statements;
};

/** End (exclusive) of the string or quoted identifier opening at `open`; doubled quotes and E'' escapes stay inside. */
const quotedEnd = (text: string, open: number): number => {
  const quote = text[open];
  const escapes = quote === "'" && /[eE]/.test(text[open - 1] ?? '') && !identifierChar.test(text[open - 2] ?? '');
  let j = open + 1;
  while (j < text.length) {
    if (escapes && text[j] === '\\') {
      j += 2;
    } else if (text[j] === quote) {
      if (text[j + 1] !== quote) {
        return j + 1;
      }
      j += 2;
    } else {
      j++;
    }
  }
  throw new SqlLexicalError(quote === "'" ? 'unterminated string' : 'unterminated quoted identifier', open);
};

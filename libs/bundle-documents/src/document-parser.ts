import * as jsYaml from 'js-yaml';
import { isMap, isScalar, isSeq, Node, parseDocument as parseYamlDocument } from 'yaml';

import { deepBracketOffset, describeBreach, measureDocument } from './document-budget';
import { documentFormatOf } from './document-format';
import { IngestionError } from './ingestion.error';
import { lineOfOffset, lineOfPointer, lineStarts } from './source-locator';

export * from './document-format';

const lineAtOffset = (text: string, offset: number): number => lineOfOffset(lineStarts(text), offset);

/** Lines of both places a YAML map repeats a key: js-yaml names only the second. */
const duplicateKeyLines = (text: string): { key: string; first: number; second: number } | undefined => {
  const starts = lineStarts(text);
  const search = (node: unknown): { key: string; first: number; second: number } | undefined => {
    if (isMap(node)) {
      const seen = new Map<string, number>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const key = String(pair.key.value);
          const at = (pair.key as Node).range?.[0] ?? 0;
          const first = seen.get(key);
          if (first !== undefined) {
            return { key, first: lineOfOffset(starts, first), second: lineOfOffset(starts, at) };
          }
          seen.set(key, at);
        }
        const inner = search(pair.value);
        if (inner) {
          return inner;
        }
      }
    } else if (isSeq(node)) {
      for (const item of node.items) {
        const inner = search(item);
        if (inner) {
          return inner;
        }
      }
    }
    return undefined;
  };
  try {
    return search(parseYamlDocument(text, { uniqueKeys: false }).contents);
  } catch {
    return undefined;
  }
};

const parseYaml = (file: string, text: string): unknown => {
  try {
    return jsYaml.load(text, { filename: file, schema: jsYaml.CORE_SCHEMA });
  } catch (error) {
    if (error instanceof RangeError) {
      const offset = deepBracketOffset(text);
      throw IngestionError.single('DOCUMENT_UNPARSABLE', {
        file,
        line: offset === undefined ? undefined : lineAtOffset(text, offset),
        pointer: '',
        message: describeBreach({ kind: 'depth', pointer: '' }, ''),
      });
    }
    if (!(error instanceof jsYaml.YAMLException)) {
      throw error;
    }
    const duplicate = /duplicated mapping key/.test(error.reason) ? duplicateKeyLines(text) : undefined;
    throw IngestionError.single('DOCUMENT_UNPARSABLE', {
      file,
      line: duplicate?.second ?? (error.mark ? error.mark.line + 1 : undefined),
      pointer: '',
      message: duplicate
        ? `invalid YAML: key "${duplicate.key}" is given twice in one map, at lines ${duplicate.first} and ${duplicate.second}; one would silently replace the other`
        : `invalid YAML: ${error.reason}`,
    });
  }
};

const parseJson = (file: string, text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    throw IngestionError.single('DOCUMENT_UNPARSABLE', {
      file,
      line: position ? lineAtOffset(text, Number(position[1])) : undefined,
      pointer: '',
      message: `invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}`,
    });
  }
};

/**
 * Parses one JSON or YAML file into plain data. js-yaml's core schema is used because it is several times faster
 * than a position-keeping parser on large specs and never turns values into Dates; positions are recovered lazily
 * by the SourceLocator only when a problem has to be reported. YAML aliases come back as shared objects, so the
 * result is measured as if written out before anything walks it: a few hundred bytes of aliases must not become
 * gigabytes further on.
 */
export const parseDocument = (file: string, content: Buffer): unknown => {
  if (content.includes(0)) {
    throw IngestionError.single('DOCUMENT_UNPARSABLE', {
      file,
      pointer: '',
      message: 'binary file, expected JSON or YAML',
    });
  }
  const text = content.toString('utf8');
  const format = documentFormatOf(file, text);
  const value = format === 'json' ? parseJson(file, text) : parseYaml(file, text);
  const breach = measureDocument(value);
  if (breach) {
    const bracket = breach.kind === 'depth' ? deepBracketOffset(text) : undefined;
    throw IngestionError.single('DOCUMENT_UNPARSABLE', {
      file,
      line: bracket !== undefined ? lineAtOffset(text, bracket) : lineOfPointer(file, text, breach.pointer),
      pointer: breach.pointer,
      message: describeBreach(breach, format === 'yaml' ? 'YAML aliases' : 'its values'),
    });
  }
  return value;
};

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

/**
 * Both places a JSON object repeats a key: JSON.parse keeps the last silently, dropping the first (a path's whole
 * operations). A bare scan over text that already parsed, ten times faster than a tokenizing parser; keys are compared
 * as written, so only a key spelled twice with different escapes goes unnoticed.
 */
const duplicateJsonKey = (text: string): { key: string; first: number; second: number } | undefined => {
  const objects: (Map<string, number> | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x7b /* { */) {
      objects.push(new Map());
    } else if (char === 0x5b /* [ */) {
      objects.push(undefined);
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      objects.pop();
    } else if (char === 0x22 /* " */) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c /* \ */) {
          i++;
        }
      }
      const keys = objects[objects.length - 1];
      if (keys) {
        let next = i + 1;
        while (next < text.length && /\s/.test(text[next])) {
          next++;
        }
        if (text.charCodeAt(next) === 0x3a /* : */) {
          const key = text.slice(start + 1, i);
          const first = keys.get(key);
          if (first !== undefined) {
            return { key, first, second: start };
          }
          keys.set(key, start);
        }
      }
    }
  }
  return undefined;
};

const parseJson = (file: string, text: string): unknown => {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
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
  const duplicate = duplicateJsonKey(text);
  if (duplicate) {
    const starts = lineStarts(text);
    const [first, second] = [lineOfOffset(starts, duplicate.first), lineOfOffset(starts, duplicate.second)];
    throw IngestionError.single('DOCUMENT_UNPARSABLE', {
      file,
      line: second,
      pointer: '',
      message: `invalid JSON: key ${JSON.stringify(duplicate.key)} is given twice in one object, at lines ${first} and ${second}; one would silently replace the other`,
    });
  }
  return value;
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
  const breach = measureDocument(value, format === 'yaml');
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

import * as jsYaml from 'js-yaml';

import { IngestionError } from './ingestion.error';

export type DocumentFormat = 'json' | 'yaml';

export const documentFormatOf = (file: string, text: string): DocumentFormat =>
  /\.json$/i.test(file) || (!/\.ya?ml$/i.test(file) && /^\s*[[{]/.test(text)) ? 'json' : 'yaml';

const lineAtOffset = (text: string, offset: number): number => {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
    }
  }
  return line;
};

/**
 * Parses one JSON or YAML file into plain data. js-yaml's core schema is used because it is several times faster
 * than a position-keeping parser on large specs and never turns values into Dates; positions are recovered lazily
 * by the SourceLocator only when a problem has to be reported.
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
  if (format === 'json') {
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
  }
  try {
    return jsYaml.load(text, { filename: file, schema: jsYaml.CORE_SCHEMA, json: true });
  } catch (error) {
    if (error instanceof jsYaml.YAMLException) {
      throw IngestionError.single('DOCUMENT_UNPARSABLE', {
        file,
        line: error.mark ? error.mark.line + 1 : undefined,
        pointer: '',
        message: `invalid YAML: ${error.reason}`,
      });
    }
    throw error;
  }
};

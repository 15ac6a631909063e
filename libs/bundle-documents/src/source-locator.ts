import * as jsonc from 'jsonc-parser';
import { isMap, isScalar, isSeq, Node, parseDocument } from 'yaml';

import { BundleFiles } from './bundle-files';
import { documentFormatOf } from './document-format';
import { IngestionProblem, SourceLocation } from './ingestion.error';
import { parsePointer } from './json-pointer';

/** Finds the offset of a pointer in one file; the deepest existing ancestor's when the pointer runs past the data. */
type OffsetFinder = (segments: string[]) => number | undefined;

interface PositionedFile {
  find: OffsetFinder;
  line: (offset: number) => number;
}

export const lineStarts = (text: string): number[] => {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      starts.push(i + 1);
    }
  }
  return starts;
};

/** The 1-based line holding `offset`, given the file's `lineStarts`. */
export const lineOfOffset = (starts: number[], offset: number): number => {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return low + 1;
};

/** JSON: jsonc-parser's tree is five times faster to build than a YAML document on multi-megabyte specs. */
const jsonFinder = (text: string): OffsetFinder => {
  const root = jsonc.parseTree(text);
  return (segments) => {
    let node = root;
    let offset = node?.offset;
    for (const segment of segments) {
      let next: jsonc.Node | undefined;
      if (node?.type === 'object') {
        const property = node.children?.find((child) => child.children?.[0]?.value === segment);
        if (property) {
          offset = property.offset;
          next = property.children?.[1];
        }
      } else if (node?.type === 'array' && /^\d+$/.test(segment)) {
        next = node.children?.[Number(segment)];
        offset = next?.offset ?? offset;
      }
      if (!next) {
        break;
      }
      node = next;
    }
    return offset;
  };
};

const yamlFinder = (text: string): OffsetFinder => {
  const root = parseDocument(text, { keepSourceTokens: false, uniqueKeys: false }).contents as Node | null;
  return (segments) => {
    if (!root) {
      return undefined;
    }
    let node: Node = root;
    let offset = node.range?.[0];
    for (const segment of segments) {
      let next: Node | undefined;
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
        if (pair) {
          offset = (pair.key as Node).range?.[0] ?? offset;
          next = pair.value as Node | undefined;
        }
      } else if (isSeq(node) && /^\d+$/.test(segment)) {
        next = node.items[Number(segment)] as Node | undefined;
        offset = next?.range?.[0] ?? offset;
      }
      if (!next) {
        break;
      }
      node = next;
    }
    return offset;
  };
};

/** The line of the node at `pointer` in one file's text, or undefined when its positions cannot be read. */
export const lineOfPointer = (file: string, text: string, pointer: string): number | undefined => {
  try {
    const find = documentFormatOf(file, text) === 'json' ? jsonFinder(text) : yamlFinder(text);
    const offset = find(parsePointer(pointer));
    return offset === undefined ? undefined : lineOfOffset(lineStarts(text), offset);
  } catch {
    // A position-keeping parser may overflow the stack on a pathological file; the caller still has the pointer.
    return undefined;
  }
};

/**
 * Turns (file, JSON pointer) into a line number. Parsing with positions is several times slower than plain parsing,
 * so a file is re-read with a position-keeping parser only when a problem in it is reported, and the result is
 * cached for the next problem in the same file.
 */
export class SourceLocator {
  private readonly documents = new Map<string, PositionedFile | null>();

  constructor(private readonly files: BundleFiles) {}

  locate(file: string, pointer: string): SourceLocation {
    const line = this.lineOf(file, pointer);
    return line === undefined ? { file, pointer } : { file, line, pointer };
  }

  problem(file: string, pointer: string, message: string): IngestionProblem {
    return { ...this.locate(file, pointer), message };
  }

  /** Line of the node at the pointer, or of its deepest existing ancestor when the pointer runs past the data. */
  lineOf(file: string, pointer: string): number | undefined {
    const positioned = this.load(file);
    if (!positioned) {
      return undefined;
    }
    let segments: string[];
    try {
      segments = parsePointer(pointer);
    } catch {
      return undefined;
    }
    const offset = positioned.find(segments);
    return offset === undefined ? undefined : positioned.line(offset);
  }

  private load(file: string): PositionedFile | null {
    if (!this.documents.has(file)) {
      try {
        const text = this.files.read(file).toString('utf8');
        const starts = lineStarts(text);
        this.documents.set(file, {
          find: documentFormatOf(file, text) === 'json' ? jsonFinder(text) : yamlFinder(text),
          line: (offset) => lineOfOffset(starts, offset),
        });
      } catch {
        this.documents.set(file, null);
      }
    }
    return this.documents.get(file) ?? null;
  }
}

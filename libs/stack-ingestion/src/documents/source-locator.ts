import { isMap, isScalar, isSeq, LineCounter, Node, parseDocument } from 'yaml';

import { BundleFiles } from '../bundle/bundle-files';
import { IngestionProblem, SourceLocation } from '../ingestion.error';
import { parsePointer } from './json-pointer';

/**
 * Turns (file, JSON pointer) into a line number. Parsing with positions is several times slower than plain parsing,
 * so each file is re-read with the position-keeping `yaml` parser (which reads JSON too) only when a problem in it
 * is reported, and the result is cached for the next problem in the same file.
 */
export class SourceLocator {
  private readonly documents = new Map<string, { root: Node | null; lines: LineCounter } | null>();

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
    const parsed = this.load(file);
    if (!parsed?.root) {
      return undefined;
    }
    let node: Node = parsed.root;
    let offset = node.range?.[0];
    let segments: string[];
    try {
      segments = parsePointer(pointer);
    } catch {
      return undefined;
    }
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
    return offset === undefined ? undefined : parsed.lines.linePos(offset).line;
  }

  private load(file: string): { root: Node | null; lines: LineCounter } | null {
    if (!this.documents.has(file)) {
      try {
        const lines = new LineCounter();
        const document = parseDocument(this.files.read(file).toString('utf8'), {
          lineCounter: lines,
          keepSourceTokens: false,
          uniqueKeys: false,
        });
        this.documents.set(file, { root: document.contents as Node | null, lines });
      } catch {
        this.documents.set(file, null);
      }
    }
    return this.documents.get(file) ?? null;
  }
}

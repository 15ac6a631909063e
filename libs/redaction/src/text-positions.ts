/** A place in a text as secretlint's rules name it: lines from 1, columns from 0. */
export interface TextPosition {
  line: number;
  column: number;
}

/**
 * Index ↔ line/column in one text, as secretlint's core computes them (its `structured-source`): a line ends at `\n`,
 * `\r`, `\r\n`, U+2028 or U+2029. None of the recommended rules that redaction runs reads a position; this is here so
 * that a rule that one day does gets the core's answer rather than a failure that would pass for "nothing found".
 */
export class TextPositions {
  private readonly lineStarts = [0];

  constructor(text: string) {
    const breaks = /[\r\n\u2028\u2029]/g;
    for (let found = breaks.exec(text); found; found = breaks.exec(text)) {
      const end = text.startsWith('\r\n', found.index) ? found.index + 1 : found.index;
      if (end + 1 > text.length) {
        break;
      }
      this.lineStarts.push(end + 1);
      breaks.lastIndex = end + 1;
    }
  }

  positionToIndex({ line, column }: TextPosition): number {
    return this.lineStarts[line - 1] + column;
  }

  indexToPosition(index: number): TextPosition {
    // The number of line starts at or before the index is the line.
    let low = 0;
    let high = this.lineStarts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.lineStarts[middle] <= index) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return { line: low, column: index - this.lineStarts[low - 1] };
  }

  locationToRange({ start, end }: { start: TextPosition; end: TextPosition }): [number, number] {
    return [this.positionToIndex(start), this.positionToIndex(end)];
  }

  rangeToLocation([start, end]: readonly [number, number]): { start: TextPosition; end: TextPosition } {
    return { start: this.indexToPosition(start), end: this.indexToPosition(end) };
  }
}

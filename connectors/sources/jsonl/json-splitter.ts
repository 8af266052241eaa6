/**
 * Split a JSON document arriving in chunks into its top-level values without
 * holding the whole document: a top-level array is split into its elements,
 * and a sequence of top-level values (concatenated or one per line) into those
 * values. Each piece is handed out as text with the line it starts on, for
 * JSON.parse to parse; only one element is in memory at a time.
 *
 * With `single`, it splits one value out of a longer text and stops after it
 * ({@link JsonSplitter.stoppedAt}): the pointer splitter uses it for the value
 * its path leads to, in the middle of a document.
 */

export interface JsonPiece {
  text: string;
  /** 1-based line the value starts on. */
  line: number;
  /** Position in the top-level array, when the document is one. */
  index?: number;
}

export class JsonSplitError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'JsonSplitError';
  }
}

/** JSON's insignificant whitespace. */
export const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const STRING_STOP = /["\\]/g;

/** Where the body of a JSON string being read goes on: `escaped` is whether the last chunk ended on a backslash. */
export interface StringScan {
  escaped: boolean;
}

/**
 * The offset of the quote that closes the JSON string being read in `chunk`
 * from `at`, or -1 when the chunk ends first (`scan.escaped` then carries a
 * backslash at its very end to the next chunk).
 */
export function stringEnd(chunk: string, at: number, scan: StringScan): number {
  let i = at;
  while (i < chunk.length) {
    if (scan.escaped) {
      scan.escaped = false;
      i += 1;
      continue;
    }
    STRING_STOP.lastIndex = i;
    const hit = STRING_STOP.exec(chunk);
    if (!hit) return -1;
    i = hit.index + 1;
    if (hit[0] === '"') return hit.index;
    scan.escaped = true;
  }
  return -1;
}

export interface JsonSplitterOptions {
  /** The line the text starts on. @default 1 */
  line?: number;
  /** Stop after the first value (an array: after its `]`, its elements split). */
  single?: boolean;
}

export class JsonSplitter {
  /** The line the text read so far ends on. */
  line: number;
  /**
   * With `single`: the offset in the last chunk pushed just past the value, once it has ended
   * (a number, string, `true`… ends at the character after it, which is not consumed).
   */
  stoppedAt: number | undefined;
  private readonly single: boolean;
  /** Bracket depth of the whole document. */
  private depth = 0;
  private inString = false;
  private readonly scan: StringScan = { escaped: false };
  /** 'top': between top-level values; 'array': inside the top-level array; 'done': after it. */
  private mode: 'top' | 'array' | 'done' = 'top';
  private seenTopValue = false;
  private arrayIndex = 0;
  /** Inside the top-level array, what may come next: the first element or `]`, an element, or `,` / `]`. */
  private expect: 'first' | 'element' | 'separator' = 'first';
  /** The value being collected: its kind, start line and text so far. */
  private value: { kind: 'container' | 'string' | 'scalar'; line: number; parts: string[] } | undefined;

  constructor(options: JsonSplitterOptions = {}) {
    this.line = options.line ?? 1;
    this.single = options.single ?? false;
  }

  /** Feed a chunk; returns the values completed by it. */
  push(chunk: string): JsonPiece[] {
    const out: JsonPiece[] = [];
    let start = this.value ? 0 : -1;
    let i = 0;
    const length = chunk.length;
    const level = (): number => (this.mode === 'array' ? 1 : 0);
    while (i < length) {
      if (this.inString) {
        const end = stringEnd(chunk, i, this.scan);
        if (end === -1) {
          i = length;
          break;
        }
        this.inString = false;
        i = end + 1;
        if (this.value?.kind === 'string' && this.depth === level()) {
          out.push(this.finish(chunk.slice(start, i)));
          start = -1;
          if (this.stopsAt(i)) return out;
        }
        continue;
      }
      const c = chunk[i]!;
      if (this.value) {
        if (this.value.kind === 'scalar') {
          if (WHITESPACE.has(c) || c === ',' || c === ']' || c === '}' || c === '[' || c === '{' || c === '"') {
            out.push(this.finish(chunk.slice(start, i)));
            start = -1;
            if (this.stopsAt(i)) return out;
            continue; // the delimiter is handled as structure below, on the next pass
          }
        } else if (c === '"') {
          this.inString = true;
        } else if (c === '{' || c === '[') {
          this.depth += 1;
        } else if (c === '}' || c === ']') {
          this.depth -= 1;
          if (this.depth === level()) {
            out.push(this.finish(chunk.slice(start, i + 1)));
            start = -1;
            if (this.stopsAt(i + 1)) return out;
          }
        } else if (c === '\n') {
          this.line += 1;
        }
        i += 1;
        continue;
      }
      // Between values.
      if (c === '\n') this.line += 1;
      if (WHITESPACE.has(c)) {
        i += 1;
        continue;
      }
      if (this.mode === 'done') throw new JsonSplitError(`unexpected "${c}" after the top-level array`, this.line);
      if (this.mode === 'array') {
        if (c === ',') {
          if (this.expect !== 'separator') throw new JsonSplitError('unexpected "," where an array element belongs', this.line);
          this.expect = 'element';
          i += 1;
          continue;
        }
        if (c === ']') {
          if (this.expect === 'element') throw new JsonSplitError('unexpected "]" after ",": an array element is missing', this.line);
          this.depth = 0;
          this.mode = 'done';
          i += 1;
          if (this.single) {
            this.stoppedAt = i;
            return out;
          }
          continue;
        }
        if (this.expect === 'separator') throw new JsonSplitError(`unexpected "${c}": array elements must be separated by ","`, this.line);
        this.expect = 'separator';
      } else if (c === '[' && !this.seenTopValue) {
        this.mode = 'array';
        this.depth = 1;
        this.seenTopValue = true;
        i += 1;
        continue;
      }
      if (c === ',' || c === ']' || c === '}') throw new JsonSplitError(`unexpected "${c}"`, this.line);
      this.seenTopValue = true;
      start = i;
      if (c === '{' || c === '[') {
        this.value = { kind: 'container', line: this.line, parts: [] };
        this.depth += 1;
      } else if (c === '"') {
        this.value = { kind: 'string', line: this.line, parts: [] };
        this.inString = true;
      } else {
        this.value = { kind: 'scalar', line: this.line, parts: [] };
      }
      i += 1;
    }
    if (this.value && start !== -1) this.value.parts.push(chunk.slice(start));
    return out;
  }

  /** Signal the end of input; returns a last scalar value, or throws when a value or the array is unfinished. */
  end(): JsonPiece[] {
    const pieces: JsonPiece[] = [];
    if (this.value) {
      if (this.value.kind !== 'scalar') throw new JsonSplitError('the file ends inside a value', this.value.line);
      pieces.push(this.finish(''));
    }
    if (this.mode === 'array') throw new JsonSplitError(`the file ends before the ${this.single ? '' : 'top-level '}array is closed`, this.line);
    return pieces;
  }

  /** With `single`, after a top-level value (not an array's element): stop at `offset`. */
  private stopsAt(offset: number): boolean {
    if (!this.single || this.mode !== 'top') return false;
    this.mode = 'done';
    this.stoppedAt = offset;
    return true;
  }

  private finish(tail: string): JsonPiece {
    const value = this.value!;
    this.value = undefined;
    const piece: JsonPiece = { text: value.parts.join('') + tail, line: value.line };
    if (this.mode === 'array') piece.index = this.arrayIndex++;
    return piece;
  }
}

/**
 * Stream what a pointer selects out of a .json document without holding the
 * document: `{"meta": {…}, "data": [ …10M elements… ]}` with `pointer: /data`
 * is read one element at a time, as a top-level array is.
 *
 * The splitter walks down the pointer's path through the objects and arrays of
 * each top-level value, skips every value beside the path as it goes (checking
 * only its brackets, strings and literals), and hands the value the path leads
 * to to a {@link JsonSplitter}, which splits it into its elements when it is an
 * array. A document that is a top-level array is split into its elements as
 * before, and the pointer is applied to each parsed element by the caller
 * (the elements are the values, and each is bounded).
 *
 * A key that appears twice in one object on the path fails the read: JSON.parse
 * would keep the last, and the first has been handed out by then.
 */
import { JsonSplitError, JsonSplitter, stringEnd, WHITESPACE, type JsonPiece, type StringScan } from './json-splitter.js';

export type PointerPiece =
  /** An element of a top-level array: the pointer is still to be applied to it. */
  | { kind: 'element'; piece: JsonPiece }
  /** The value at the pointer, or (`piece.index` set) one element of the array there. */
  | { kind: 'selected'; piece: JsonPiece }
  /** A top-level value with nothing at the pointer, by the line it starts on. */
  | { kind: 'missing'; line: number };

interface Frame {
  container: 'object' | 'array';
  /** What may come next: in an object a key (`key-or-end` right after `{`), its `:`, its value; in an array a value; then `,` or the end. */
  phase: 'key-or-end' | 'key' | 'colon' | 'value' | 'value-or-end' | 'comma-or-end';
  /** The key of the member being read (objects). */
  key: string;
  /** Whether the path's step was met in this container (objects), or the index of the next element (arrays). */
  found: boolean;
  index: number;
}

const INDEX = /^(0|[1-9]\d*)$/;

export class JsonPointerSplitter {
  private line = 1;
  private started = false;
  /** The document is a top-level array: all of it goes to this splitter. */
  private elements: JsonSplitter | undefined;
  /** Containers entered along the path, outermost first: frames[p] is where path[p] is looked for. */
  private readonly frames: Frame[] = [];
  private rootLine = 0;
  private rootReached = false;
  /** The value the path led to, being split. */
  private target: JsonSplitter | undefined;
  private skipper: ValueSkipper | undefined;
  /** An object key being read: its text so far (without quotes), and whether the last character was a backslash. */
  private keyText: (StringScan & { parts: string[] }) | undefined;

  constructor(private readonly path: readonly string[]) {
    if (path.length === 0) throw new Error('JsonPointerSplitter needs a path of at least one step');
  }

  /** Feed a chunk; returns what it completed. */
  push(chunk: string): PointerPiece[] {
    const out: PointerPiece[] = [];
    if (this.elements) return this.fromElements(this.elements.push(chunk));
    let i = 0;
    while (i < chunk.length) {
      if (this.target) i = this.feedTarget(chunk, i, out);
      else if (this.skipper) i = this.feedSkipper(chunk, i, out);
      else if (this.keyText) i = this.feedKey(chunk, i);
      else {
        const c = chunk[i]!;
        if (WHITESPACE.has(c)) {
          if (c === '\n') this.line += 1;
          i += 1;
        } else if (this.frames.length === 0) {
          if (!this.started && c === '[') {
            this.elements = new JsonSplitter({ line: this.line });
            return [...out, ...this.fromElements(this.elements.push(chunk.slice(i)))];
          }
          this.started = true;
          this.rootLine = this.line;
          this.rootReached = false;
          i = this.startValue(c, i);
        } else {
          i = this.structure(c, i, out);
        }
      }
    }
    return out;
  }

  /** Signal the end of input; throws when a value is unfinished. */
  end(): PointerPiece[] {
    if (this.elements) return this.fromElements(this.elements.end());
    const out: PointerPiece[] = [];
    if (this.target) {
      for (const piece of this.target.end()) out.push({ kind: 'selected', piece });
      this.target = undefined;
      this.afterValue(out);
    } else if (this.skipper) {
      this.skipper.end();
      this.skipper = undefined;
      this.afterValue(out);
    }
    if (this.frames.length > 0 || this.keyText) throw new JsonSplitError('the file ends inside a value', this.rootLine);
    return out;
  }

  private fromElements(pieces: JsonPiece[]): PointerPiece[] {
    return pieces.map((piece) => ({ kind: 'element', piece }));
  }

  /** A value begins at chunk[i], at depth `depth` of the path: enter it, split it, or skip it. Returns where to go on. */
  private startValue(c: string, i: number): number {
    const depth = this.frames.length;
    if (depth === this.path.length) {
      this.rootReached = true;
      this.target = new JsonSplitter({ line: this.line, single: true });
      return i;
    }
    if (c === '{') {
      this.frames.push({ container: 'object', phase: 'key-or-end', key: '', found: false, index: 0 });
      return i + 1;
    }
    if (c === '[' && INDEX.test(this.path[depth]!)) {
      this.frames.push({ container: 'array', phase: 'value-or-end', key: '', found: false, index: 0 });
      return i + 1;
    }
    return this.skipValue(c, i);
  }

  /** A value off the path begins at chunk[i]: read past it, holding none of it. */
  private skipValue(c: string, i: number): number {
    if (c === ',' || c === ':' || c === ']' || c === '}') throw new JsonSplitError(`unexpected "${c}" where a value belongs`, this.line);
    this.skipper = new ValueSkipper(this.line);
    return i;
  }

  /** A structural character inside the innermost container of the path. */
  private structure(c: string, i: number, out: PointerPiece[]): number {
    const frame = this.frames.at(-1)!;
    const step = this.path[this.frames.length - 1]!;
    switch (frame.phase) {
      case 'key-or-end':
      case 'key':
        if (c === '"') {
          this.keyText = { parts: [], escaped: false };
          return i + 1;
        }
        if (c === '}' && frame.phase === 'key-or-end') return this.close(i, out);
        throw new JsonSplitError(`unexpected "${c}" where an object key belongs`, this.line);
      case 'colon':
        if (c !== ':') throw new JsonSplitError(`unexpected "${c}" where ":" belongs`, this.line);
        frame.phase = 'value';
        return i + 1;
      case 'value-or-end':
      case 'value': {
        if (c === ']' && frame.phase === 'value-or-end') return this.close(i, out);
        frame.phase = 'comma-or-end';
        const onPath = frame.container === 'object' ? frame.key === step : frame.index++ === Number(step);
        if (!onPath) return this.skipValue(c, i);
        if (frame.found) {
          throw new JsonSplitError(`the key "${step}" appears twice in one object on the pointer's path; JSON keeps the last, and the first was read already`, this.line);
        }
        frame.found = true;
        return this.startValue(c, i);
      }
      case 'comma-or-end':
        if (c === ',') {
          frame.phase = frame.container === 'object' ? 'key' : 'value';
          return i + 1;
        }
        if (c === (frame.container === 'object' ? '}' : ']')) return this.close(i, out);
        throw new JsonSplitError(`unexpected "${c}": expected "," or "${frame.container === 'object' ? '}' : ']'}"`, this.line);
    }
  }

  private close(i: number, out: PointerPiece[]): number {
    this.frames.pop();
    this.afterValue(out);
    return i + 1;
  }

  /** A value has ended; when it was the top-level one, say whether it had anything at the pointer. */
  private afterValue(out: PointerPiece[]): void {
    if (this.frames.length === 0 && !this.rootReached) out.push({ kind: 'missing', line: this.rootLine });
  }

  private feedTarget(chunk: string, i: number, out: PointerPiece[]): number {
    const target = this.target!;
    for (const piece of target.push(i === 0 ? chunk : chunk.slice(i))) out.push({ kind: 'selected', piece });
    this.line = target.line;
    if (target.stoppedAt === undefined) return chunk.length;
    this.target = undefined;
    this.afterValue(out);
    return i + target.stoppedAt;
  }

  private feedSkipper(chunk: string, i: number, out: PointerPiece[]): number {
    const skipper = this.skipper!;
    const next = skipper.feed(chunk, i);
    this.line = skipper.line;
    if (next === -1) return chunk.length;
    this.skipper = undefined;
    this.afterValue(out);
    return next;
  }

  private feedKey(chunk: string, i: number): number {
    const key = this.keyText!;
    const end = stringEnd(chunk, i, key);
    if (end === -1) {
      key.parts.push(chunk.slice(i));
      return chunk.length;
    }
    key.parts.push(chunk.slice(i, end));
    this.keyText = undefined;
    const frame = this.frames.at(-1)!;
    try {
      frame.key = JSON.parse(`"${key.parts.join('')}"`) as string;
    } catch {
      throw new JsonSplitError('an object key is not a valid JSON string', this.line);
    }
    frame.phase = 'colon';
    return end + 1;
  }

}

const LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;
const CLOSER: Record<string, string> = { '[': ']', '{': '}' };

/**
 * Skips one JSON value, holding none of it: brackets are matched and strings
 * read past, and a bare word must be a number or `true`, `false`, `null`.
 * Nothing else is checked (a missing comma inside goes unnoticed).
 */
class ValueSkipper {
  /** Closing brackets still owed, innermost last. */
  private closers = '';
  private inString = false;
  private readonly scan: StringScan = { escaped: false };
  /** The bare word being read (a number or literal), when the value is one. */
  private word: string | undefined;

  /** @param line the line the value starts on; it is the line the skipper has reached after each feed. */
  constructor(public line: number) {}

  /** Read on from chunk[i]; returns the offset just past the value, or -1 when the chunk ended first. */
  feed(chunk: string, i: number): number {
    let at = i;
    while (at < chunk.length) {
      if (this.inString) {
        const end = stringEnd(chunk, at, this.scan);
        if (end === -1) return -1;
        this.inString = false;
        at = end + 1;
        if (this.closers === '') return at;
        continue;
      }
      const c = chunk[at]!;
      if (this.word !== undefined) {
        if (WHITESPACE.has(c) || c === ',' || c === ']' || c === '}' || c === ':') {
          this.checkWord();
          if (this.closers === '') return at;
        } else {
          this.word += c;
          at += 1;
          continue;
        }
      }
      if (c === '\n') this.line += 1;
      if (c === '"') this.inString = true;
      else if (c === '[' || c === '{') this.closers += CLOSER[c];
      else if (c === ']' || c === '}') {
        if (this.closers.at(-1) !== c) throw new JsonSplitError(`unexpected "${c}"`, this.line);
        this.closers = this.closers.slice(0, -1);
        if (this.closers === '') return at + 1;
      } else if (!WHITESPACE.has(c) && c !== ',' && c !== ':') this.word = c;
      at += 1;
    }
    return -1;
  }

  /** The input ended: only a bare word may end with it. */
  end(): void {
    if (this.word !== undefined && this.closers === '') {
      this.checkWord();
      return;
    }
    throw new JsonSplitError('the file ends inside a value', this.line);
  }

  private checkWord(): void {
    const word = this.word!;
    this.word = undefined;
    if (!LITERAL.test(word)) throw new JsonSplitError(`"${word.length > 20 ? `${word.slice(0, 20)}…` : word}" is not a JSON value`, this.line);
  }
}

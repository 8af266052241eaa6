/**
 * Finding the lines of a UTF-8 file that hold bytes which are not valid
 * UTF-8. The decoder replaces such bytes with U+FFFD; this check, placed
 * before it, remembers where they were so that the parser can say which
 * records were changed (or refuse them) instead of changing data silently.
 */
import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;

/** Encodings this check applies to; single-byte encodings (latin1…) accept every byte. */
export function isUtf8Encoding(encoding: string): boolean {
  return /^utf-?8$/i.test(encoding);
}

/** The byte check for a file in `encoding`: undefined when the encoding accepts every byte. */
export function utf8CheckFor(encoding: string): Utf8Check | undefined {
  return isUtf8Encoding(encoding) ? new Utf8Check() : undefined;
}

/** Line numbers found and not yet taken, ascending. */
export class PendingLines {
  private lines: number[] = [];

  /** Lines found after every line added so far. */
  add(lines: readonly number[]): void {
    for (const line of lines) this.lines.push(line);
  }

  /** Lines up to and including `line`, removed from the queue. */
  takeUpTo(line: number): number[] {
    let count = 0;
    while (count < this.lines.length && this.lines[count]! <= line) count++;
    return this.lines.splice(0, count);
  }
}

/**
 * A pass-through stream of raw bytes that records the 1-based line of every
 * invalid UTF-8 sequence. Valid chunks cost one `isUtf8` call and a newline
 * count; only a chunk with a bad sequence is scanned byte by byte.
 */
export class Utf8Check extends Transform {
  /** Lines with invalid bytes not yet taken by the parser. */
  private readonly pending = new PendingLines();
  /** The last line flagged, so that a line with several bad sequences is flagged once (nothing kept per line: a whole file may be flagged). */
  private lastFlagged = 0;
  private line = 1;
  private carry: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const cut = data.length - incompleteTail(data);
    this.check(data.subarray(0, cut));
    this.carry = Buffer.from(data.subarray(cut));
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    // A sequence cut short by the end of the file is invalid too.
    if (this.carry.length > 0) this.check(this.carry, true);
    done();
  }

  /** Invalid lines up to and including `line`, removed from the queue. */
  takeUpTo(line: number): number[] {
    return this.pending.takeUpTo(line);
  }

  private check(bytes: Buffer, truncated = false): void {
    if (!truncated && isUtf8(bytes)) {
      this.line += countNewlines(bytes, 0, bytes.length);
      return;
    }
    let from = 0;
    for (const offset of invalidOffsets(bytes)) {
      this.line += countNewlines(bytes, from, offset);
      from = offset;
      if (this.lastFlagged !== this.line) {
        this.lastFlagged = this.line;
        this.pending.add([this.line]);
      }
    }
    this.line += countNewlines(bytes, from, bytes.length);
  }
}

function countNewlines(bytes: Buffer, from: number, to: number): number {
  let count = 0;
  let index = bytes.indexOf(NEWLINE, from);
  while (index !== -1 && index < to) {
    count++;
    index = bytes.indexOf(NEWLINE, index + 1);
  }
  return count;
}

/** Length of a multi-byte sequence that starts with `lead`, or 0 for a byte that cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Bytes at the end of a chunk that may be the start of a sequence the next chunk completes. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) !== 0x80) return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/** Offsets where an invalid sequence starts (overlong forms and surrogates included, as TextDecoder sees them). */
function invalidOffsets(bytes: Buffer): number[] {
  const offsets: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes[i]!);
    if (length === 1) {
      i++;
      continue;
    }
    if (length === 0 || i + length > bytes.length || !isUtf8(bytes.subarray(i, i + length))) {
      offsets.push(i);
      i++;
      continue;
    }
    i += length;
  }
  return offsets;
}

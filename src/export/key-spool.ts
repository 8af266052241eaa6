/**
 * The keys a `deletes: mirror` export collects, for the destination to keep:
 * as many as the service lists (ten million UUIDs are some 400 MB as a
 * `Set<string>`), so past a small budget they go to a temporary file, and are
 * read back from it a buffer at a time.
 *
 * Append-only, with no "seen before?": the destinations load the keys into a
 * table and anti-join it, where a key listed twice counts once. A SeenSet
 * would also dedupe, at the price of a B-tree insert per key past its memory
 * tier, a hundred times what an append costs (docs/performance.md, "State store").
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { LiveKeys } from '../sdk/types.js';

/** Characters of keys held in memory before they are written out (some 2 MB). */
const MEMORY_CHARS = 1 << 20;
const READ_BYTES = 1 << 20;

export class KeySpool implements LiveKeys {
  private pending: string[] = [];
  private pendingChars = 0;
  private file: { dir: string; path: string; fd: number } | undefined;
  private count = 0;

  /** @param memoryChars characters kept in memory before spilling (tests spill early with it). */
  constructor(private readonly memoryChars = MEMORY_CHARS) {}

  /** Keys added (a key added twice counts twice). */
  get size(): number {
    return this.count;
  }

  add(key: string): void {
    this.pending.push(key);
    this.pendingChars += key.length;
    this.count += 1;
    if (this.pendingChars >= this.memoryChars) this.spill();
  }

  /** The keys in the order they came: those in the file, then those in memory. Nothing may be added meanwhile. */
  *[Symbol.iterator](): Iterator<string> {
    if (this.file) yield* readLines(this.file.path);
    yield* this.pending;
  }

  /** Removes the file; the spool is empty afterwards. */
  close(): void {
    this.pending = [];
    this.pendingChars = 0;
    this.count = 0;
    const file = this.file;
    this.file = undefined;
    if (!file) return;
    closeSync(file.fd);
    rmSync(file.dir, { recursive: true, force: true });
  }

  /** One JSON string per line: a key may hold a newline or any other character. */
  private spill(): void {
    if (!this.file) {
      const dir = mkdtempSync(join(tmpdir(), 'ferry-keys-'));
      const path = join(dir, 'keys.jsonl');
      this.file = { dir, path, fd: openSync(path, 'w') };
    }
    let text = '';
    for (const key of this.pending) text += `${JSON.stringify(key)}\n`;
    writeSync(this.file.fd, text);
    this.pending = [];
    this.pendingChars = 0;
  }
}

/** The keys of a spool file, a buffer at a time. */
function* readLines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (;;) {
      const read = readSync(fd, buffer, 0, READ_BYTES, null);
      if (read === 0) break;
      const lines = (rest + decoder.write(buffer.subarray(0, read))).split('\n');
      rest = lines.pop()!;
      for (const line of lines) yield JSON.parse(line) as string;
    }
  } finally {
    closeSync(fd);
  }
}

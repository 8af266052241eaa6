/**
 * An exact set of ids kept in a few typed arrays instead of a `Set<string>`:
 * the in-memory tier of {@link SeenSet}.
 *
 * Why: a run asks "seen before?" once per record. A `Set` of strings costs
 * some 50 bytes per short id, all of it garbage-collected heap, so a set
 * within a memory budget would leave memory for its SQLite file early, and
 * from there on every id costs an indexed insert. Here an
 * id costs a byte per character plus 16 (2 bytes per UTF-16 code unit once
 * any id has a character past U+00FF), outside the JS heap, and an answer is
 * one pass over its characters and a probe or two; the same memory holds ten
 * times the ids.
 *
 * Layout: the ids' code units one after another in `units` (one byte each
 * while every one fits, as Latin-1; widened to 16 bits by the first that
 * does not); entry i spans
 * `starts[i]` to `starts[i + 1]`, with its hash in `hashes[i]`. `slots` is an
 * open-addressing table (linear probing, at most half full) of entry index + 1.
 */

/** Grows `array` to at least `length` elements (doubling), copying what it holds. */
function grown<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array>(array: T, length: number, make: (length: number) => T): T {
  if (length <= array.length) return array;
  let size = Math.max(16, array.length);
  while (size < length) size *= 2;
  const next = make(size);
  next.set(array);
  return next;
}

/** Whether the id {@link hashOf} last hashed has a code unit past 0xff: module scratch, set in the same pass. */
let lastWasWide = false;

/** A 32-bit hash of the code units (FNV-1a steps, then murmur3's finaliser for the low bits the table uses). */
function hashOf(id: string): number {
  let h = 0x811c9dc5 ^ id.length;
  let bits = 0;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    bits |= c;
    h = Math.imul(h ^ c, 0x01000193);
  }
  lastWasWide = bits > 0xff;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class CompactIdSet {
  private units: Uint8Array | Uint16Array = new Uint8Array(64);
  private used = 0;
  private starts = new Uint32Array(16);
  private hashes = new Uint32Array(16);
  private slots = new Int32Array(32);
  private count = 0;

  /** @param maxBytes what the arrays may take at most, growth included. */
  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  /** Ids held. */
  get size(): number {
    return this.count;
  }

  /** Bytes the arrays take now (what a caller's memory budget counts). */
  get bytes(): number {
    return this.units.byteLength + this.starts.byteLength + this.hashes.byteLength + this.slots.byteLength;
  }

  has(id: string): boolean {
    return this.find(id, hashOf(id)) >= 0;
  }

  /**
   * Adds `id` and tells whether it was new; undefined when it is new but
   * holding it would take the arrays past the byte limit (it is not added).
   */
  addNew(id: string): boolean | undefined {
    const hash = hashOf(id);
    const wide = lastWasWide || this.units instanceof Uint16Array;
    if (this.find(id, hash) >= 0) return false;
    if (this.bytesWith(id.length, wide) > this.maxBytes) return undefined;
    this.append(id, hash, wide);
    return true;
  }

  /** What the arrays would take with one more id of `length` code units, 16-bit ones if `wide` (each grows by doubling). */
  private bytesWith(length: number, wide: boolean): number {
    const size = (have: number, need: number): number => {
      let n = have;
      while (n < need) n *= 2;
      return n;
    };
    const count = this.count + 1;
    return (
      (wide ? 2 : 1) * size(this.units.length, this.used + length) +
      4 * size(this.starts.length, count + 1) +
      4 * size(this.hashes.length, count) +
      4 * (count * 2 > this.slots.length ? this.slots.length * 2 : this.slots.length)
    );
  }

  /** The slot holding `id`, or -1. */
  private find(id: string, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) return -1;
      if (this.hashes[entry] === hash && this.equals(entry, id)) return slot;
    }
  }

  private equals(entry: number, id: string): boolean {
    const start = this.starts[entry]!;
    if (this.starts[entry + 1]! - start !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (this.units[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private append(id: string, hash: number, wide: boolean): void {
    const entry = this.count;
    if (wide && this.units instanceof Uint8Array) this.units = Uint16Array.from(this.units);
    const units = this.units;
    this.units = units instanceof Uint8Array ? grown(units, this.used + id.length, (n) => new Uint8Array(n)) : grown(units, this.used + id.length, (n) => new Uint16Array(n));
    for (let i = 0; i < id.length; i++) this.units[this.used + i] = id.charCodeAt(i);
    this.used += id.length;
    this.hashes = grown(this.hashes, entry + 1, (n) => new Uint32Array(n));
    this.starts = grown(this.starts, entry + 2, (n) => new Uint32Array(n));
    this.hashes[entry] = hash;
    this.starts[entry + 1] = this.used;
    this.count = entry + 1;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(entry, hash);
  }

  private place(entry: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let entry = 0; entry < this.count; entry++) this.place(entry, this.hashes[entry]!);
  }
}

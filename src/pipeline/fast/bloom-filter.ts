/**
 * A fixed-size Bloom filter over strings: "certainly not added" or "maybe
 * added". The spilled {@link SeenSet} asks it before its SQLite file, so the
 * common answer (a new id) costs no query, and its memory stays the same
 * however many ids a read has (the false-positive share grows instead, which
 * only costs queries, never a wrong answer).
 */

/** 2^24 bits (2 MiB): about 0.5 % false positives at a million ids, with {@link PROBES} probes. */
const DEFAULT_BITS_LOG2 = 24;
const PROBES = 3;

export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  constructor(bitsLog2 = DEFAULT_BITS_LOG2) {
    this.bits = new Uint32Array(2 ** Math.max(5, bitsLog2) / 32);
    this.mask = 2 ** Math.max(5, bitsLog2) - 1;
  }

  add(text: string): void {
    this.addAndTell(text);
  }

  /** False: `text` was certainly never added. True: it may have been. */
  mayHave(text: string): boolean {
    hashes(text);
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + i * h2) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /**
   * Adds `text` and tells what {@link mayHave} would have said before: one
   * hash per id instead of two when the caller asks and then adds (the
   * spilled SeenSet's every new id).
   */
  addAndTell(text: string): boolean {
    hashes(text);
    let had = true;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + i * h2) & this.mask;
      const word = bit >>> 5;
      const flag = 1 << (bit & 31);
      if ((this.bits[word]! & flag) === 0) {
        had = false;
        this.bits[word]! |= flag;
      }
    }
    return had;
  }
}

/** The last {@link hashes} result: module scratch, so no pair is allocated per id. */
let h1 = 0;
let h2 = 0;

/** Two independent 32-bit FNV-1a-style hashes of the UTF-16 code units into h1, h2 (double hashing derives the probes). */
function hashes(text: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // An odd step visits distinct bits for every probe.
  h1 = a >>> 0;
  h2 = (b | 1) >>> 0;
}

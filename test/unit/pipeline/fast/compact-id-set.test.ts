import { describe, expect, it } from 'vitest';
import { CompactIdSet } from '../../../../src/pipeline/fast/compact-id-set.js';

describe('CompactIdSet', () => {
  it('answers exactly whatever the characters: empty, lone surrogates, astral, NUL, long', () => {
    const odd = ['', 'plain', 'ünïcödé', '\ud800lone', 'x\udfff', 'emoji 🚀', 'nul\u0000byte', 'line\nbreak', 'y'.repeat(10_000)];
    const set = new CompactIdSet();
    for (const id of odd) expect(set.addNew(id)).toBe(true);
    for (const id of odd) {
      expect(set.has(id)).toBe(true);
      expect(set.addNew(id)).toBe(false);
    }
    for (const id of ['Plain', 'plai', 'plainn', '\ud800', 'y'.repeat(9_999), 'nul\u0001byte']) expect(set.has(id)).toBe(false);
    expect(set.size).toBe(odd.length);
  });

  it('keeps every id through its arrays growing and its table rehashing', () => {
    const set = new CompactIdSet();
    const ids = Array.from({ length: 50_000 }, (_, i) => `D${i}`);
    let grewTo = set.bytes;
    for (const id of ids) expect(set.addNew(id)).toBe(true);
    grewTo = set.bytes - grewTo;
    expect(grewTo).toBeGreaterThan(0);
    for (const id of ids) expect(set.has(id)).toBe(true);
    // Ids that share a prefix and length with those held (probing runs over neighbours in the table).
    for (let i = 50_000; i < 60_000; i++) expect(set.has(`D${i}`)).toBe(false);
    expect(set.size).toBe(ids.length);
  });

  it('keeps Latin-1 ids a byte per character, and answers the same once a wider id widens them', () => {
    const set = new CompactIdSet();
    const narrow = Array.from({ length: 1_000 }, (_, i) => `caf\u00e9-${i}`);
    for (const id of narrow) set.addNew(id);
    const narrowBytes = set.bytes;
    expect(set.addNew('wide \u0100')).toBe(true);
    expect(set.addNew('\u00ff\ud83d\ude80')).toBe(true);
    expect(set.bytes).toBeGreaterThan(narrowBytes);
    for (const id of [...narrow, 'wide \u0100', '\u00ff\ud83d\ude80']) expect(set.addNew(id)).toBe(false);
    // Same low byte, other character: a byte-wide copy would have mistaken one for the other.
    expect(set.has('wide \u0000')).toBe(false);
    expect(set.has('caf\u01e9-1')).toBe(false);
  });

  it('takes a few bytes per id, outside the JS heap (a Set<string> of the same ids takes about 50)', () => {
    const set = new CompactIdSet();
    for (let i = 0; i < 100_000; i++) set.addNew(`D${i}`);
    // A byte per character (~6), plus start, hash and at most two table slots of 4 bytes, with power-of-two growth.
    expect(set.bytes / set.size).toBeLessThan(2 * (6 + 16));
  });

  it('never takes more than its byte limit: a new id that would grow it past the limit is refused, not added', () => {
    const set = new CompactIdSet(64 * 1024);
    let added = 0;
    let refused: string | undefined;
    for (let i = 0; refused === undefined; i++) {
      const id = `id-${i}`;
      const answer = set.addNew(id);
      if (answer === undefined) refused = id;
      else added++;
      expect(set.bytes).toBeLessThanOrEqual(64 * 1024);
    }
    expect(set.size).toBe(added);
    expect(set.has(refused)).toBe(false);
    expect(set.addNew('id-0')).toBe(false); // ids held still answer as such
  });
});


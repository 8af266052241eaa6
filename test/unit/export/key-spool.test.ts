import { describe, expect, it } from 'vitest';
import { KeySpool } from '../../../src/export/key-spool.js';
import { inChunks } from '../../../src/sdk/index.js';

describe('KeySpool', () => {
  it('gives back every key in order, those written to its file and those still in memory, duplicates included', () => {
    const spool = new KeySpool(8);
    const keys = ['a', 'line\nbreak', 'quote"\\', 'a', 'naïve', '\ud83d\ude80', '', 'last'];
    for (const key of keys) spool.add(key);
    expect(spool.size).toBe(keys.length);
    expect([...spool]).toEqual(keys);
    expect([...spool]).toEqual(keys); // read again: the file is kept until close
    spool.close();
    expect([...spool]).toEqual([]);
  });

  it('reads back a file of several read buffers, multi-byte characters split across them', () => {
    const spool = new KeySpool(1_000);
    const keys = Array.from({ length: 200_000 }, (_, i) => `ключ-${i}-é`);
    for (const key of keys) spool.add(key);
    const chunks = [...inChunks(spool, 64_000)];
    expect(chunks.map((chunk) => chunk.length)).toEqual([64_000, 64_000, 64_000, 8_000]);
    expect(chunks.flat()).toEqual(keys);
    spool.close();
  });
});

describe('inChunks', () => {
  it('refuses a size below 1, which would never end', () => {
    expect(() => [...inChunks([1], 0)]).toThrow(RangeError);
  });
});

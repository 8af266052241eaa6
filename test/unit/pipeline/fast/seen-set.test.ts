import { describe, expect, it } from 'vitest';
import { SeenSet } from '../../../../src/pipeline/fast/seen-set.js';

describe('SeenSet.addNew', () => {
  it('tells new ids from repeats, in memory and after spilling to disk', () => {
    const set = new SeenSet({ ids: 10 });
    const answers: boolean[] = [];
    for (let i = 0; i < 30; i++) answers.push(set.addNew(`id-${i % 20}`));
    expect(answers).toEqual([...Array.from({ length: 20 }, () => true), ...Array.from({ length: 10 }, () => false)]);
    expect(set.has('id-19')).toBe(true);
    expect(set.has('id-20')).toBe(false);
    set.close();
  });
});

describe('SeenSet after spilling', () => {
  it('knows every id it was given, and no other, whatever the characters (lone surrogates, quotes, non-ASCII)', () => {
    const set = new SeenSet({ ids: 3 });
    const odd = ['plain', 'quote"d', 'back\\slash', 'ünïcödé', '\ud800lone', 'x\udfff', 'emoji 🚀', 'nul\u0000byte', 'line\nbreak'];
    const many = Array.from({ length: 12_000 }, (_, i) => `id-${i}`);
    for (const id of [...odd, ...many]) expect(set.addNew(id)).toBe(true);
    for (const id of [...odd, ...many]) {
      expect(set.has(id)).toBe(true);
      expect(set.addNew(id)).toBe(false);
    }
    for (const id of ['id-12000', 'Plain', '']) expect(set.has(id)).toBe(false);
    set.close();
  });
});

describe('SeenSet past its memory budget', () => {
  it('spills by bytes and still answers every id exactly, in memory and after', () => {
    const set = new SeenSet({ bytes: 64 * 1024 });
    const ids = Array.from({ length: 20_000 }, (_, i) => `order-${i}-${'x'.repeat(i % 7)}`);
    for (const id of ids.slice(0, 100)) expect(set.addNew(id)).toBe(true);
    expect(set.addNew(ids[50]!)).toBe(false); // still in memory
    for (const id of ids.slice(100)) expect(set.addNew(id)).toBe(true);
    for (const id of ids) expect(set.addNew(id)).toBe(false);
    expect(set.has('order-20000-')).toBe(false);
    set.close();
  });
});

describe('SeenSet once past its budget', () => {
  it('keeps the ids it holds in memory where they are and answers for both parts, for has() as for addNew()', () => {
    const set = new SeenSet({ ids: 5 });
    for (let i = 0; i < 6; i++) expect(set.addNew(`early-${i}`)).toBe(true); // the sixth crosses the limit
    for (let i = 0; i < 6_000; i++) expect(set.addNew(`late-${i}`)).toBe(true); // past a pending batch: some are in the file
    for (let i = 0; i < 6; i++) {
      expect(set.has(`early-${i}`)).toBe(true);
      expect(set.addNew(`early-${i}`)).toBe(false);
    }
    for (const i of [0, 4_999, 5_000, 5_999]) {
      expect(set.has(`late-${i}`)).toBe(true);
      expect(set.addNew(`late-${i}`)).toBe(false);
    }
    expect(set.has('late-6000')).toBe(false);
    set.close();
    expect(set.addNew('early-0')).toBe(true); // closed: nothing asks any more
  });
});

/**
 * The seen-ids port: the fast path (SeenSet, compact and spilling to a file)
 * answers exactly as the plain Set does, in memory and after spilling.
 */
import { describe, expect, it } from 'vitest';
import { SeenSet } from '../../../src/pipeline/fast/seen-set.js';
import { PlainSeenIds, type SeenIds } from '../../../src/pipeline/seen-ids.js';

function answers(set: SeenIds, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) out.push(`${set.has(id)}${set.addNew(id)}${set.has(id)}`);
  set.close();
  return out;
}

describe('SeenIds', () => {
  it('gives the same answers from the fast path as from a plain Set, before and after spilling', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pool = ['', 'é', '\u{1F600}', '"quoted"', 'a\u0000b', ...Array.from({ length: 400 }, (_, i) => `id-${i}`)];
    const ids = Array.from({ length: 3_000 }, () => pool[Math.floor(random() * pool.length)]!);
    const plain = answers(new PlainSeenIds(), ids);
    expect(answers(new SeenSet(), ids)).toEqual(plain);
    expect(answers(new SeenSet({ ids: 50 }), ids)).toEqual(plain);
    expect(answers(new SeenSet({ bytes: 64 }), ids)).toEqual(plain);
  });
});

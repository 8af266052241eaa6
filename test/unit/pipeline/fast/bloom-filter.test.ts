import { describe, expect, it } from 'vitest';
import { BloomFilter } from '../../../../src/pipeline/fast/bloom-filter.js';

describe('BloomFilter.addAndTell', () => {
  it('says "certainly new" for an id never added, "maybe" once it was, and leaves it findable by mayHave', () => {
    const bloom = new BloomFilter();
    const ids = Array.from({ length: 1000 }, (_, i) => `id-${i}`);
    const firstAnswers = ids.map((id) => bloom.addAndTell(id));
    // With 2^24 bits and 1000 ids a false "maybe" is all but impossible.
    expect(firstAnswers.filter(Boolean)).toHaveLength(0);
    expect(ids.every((id) => bloom.addAndTell(id))).toBe(true);
    expect(ids.every((id) => bloom.mayHave(id))).toBe(true);
    expect(bloom.mayHave('never-added')).toBe(false);
  });

  it('agrees with mayHave-then-add on a filter small enough to saturate', () => {
    const a = new BloomFilter(6);
    const b = new BloomFilter(6);
    for (let i = 0; i < 200; i++) {
      const id = `x${i * 7919}`;
      const before = b.mayHave(id);
      b.add(id);
      expect(a.addAndTell(id)).toBe(before);
    }
  });
});

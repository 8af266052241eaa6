import { describe, expect, it } from 'vitest';
import { boundForDeadLetter, boundedFailure, EXCERPT_MARK, isExcerpt } from '../../../src/pipeline/dead-letter-excerpt.js';

describe('boundForDeadLetter', () => {
  it('keeps a value within the limit as it is (the same object)', () => {
    const record = { id: '1', title: 'small', tags: ['a', 'b'], nested: { n: 1 } };
    expect(boundForDeadLetter(record, 1024).value).toBe(record);
    expect(isExcerpt(record)).toBe(false);
  });

  it('cuts a large field to the budget, marks the excerpt and says how large the whole was', () => {
    const record = { id: '2', title: 'two', body: 'x'.repeat(1_000_000), after: 'kept?' };
    const bounded = boundForDeadLetter(record, 4096);
    const value = bounded.value as Record<string, unknown>;
    expect(bounded.sizeBytes).toBeGreaterThan(1_000_000);
    expect(isExcerpt(value)).toBe(true);
    expect(value[EXCERPT_MARK]).toMatchObject({ keptBytes: 4096, note: expect.stringMatching(/excerpt.*977 KiB.*4 KiB/) as unknown });
    expect(value.id).toBe('2');
    expect(value.title).toBe('two');
    expect(value.body).toMatch(/^x+… \[cut: 1000000 characters in all\]$/);
    expect(JSON.stringify(value).length).toBeLessThan(4096 + 400);
  });

  it('cuts long arrays and many fields, saying how many were left out', () => {
    const list = boundForDeadLetter(Array.from({ length: 10_000 }, (_, i) => `item ${i}`), 1024).value as Record<string, unknown>;
    const items = list.value as string[];
    expect(items.at(-1)).toMatch(/^… \[cut: \d+ more items\]$/);
    const wide = boundForDeadLetter(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, i])), 1024).value as Record<string, unknown>;
    expect(wide['…']).toMatch(/^\[cut: \d+ more fields\]$/);
  });
});

describe('boundedFailure', () => {
  it('bounds the source record, the body and the error body, and says so in the reason', () => {
    const big = { id: '1', body: 'y'.repeat(200_000) };
    const failure = boundedFailure({ reason: 'rejected', sourceRecord: big, body: { id: '1', fields: big }, errorBody: { detail: 'no' } }, 8192);
    expect(isExcerpt(failure.sourceRecord)).toBe(true);
    expect(isExcerpt(failure.body)).toBe(true);
    expect(failure.errorBody).toEqual({ detail: 'no' });
    expect(failure.reason).toMatch(/^rejected \(the record is about 195 KiB: its dead-letter entry keeps a 8 KiB excerpt\)$/);
    const small = { reason: 'rejected', sourceRecord: { id: '1' }, body: null, errorBody: null };
    expect(boundedFailure(small)).toBe(small);
  });
});

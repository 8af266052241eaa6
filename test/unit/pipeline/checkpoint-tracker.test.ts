import { describe, expect, it } from 'vitest';
import { CheckpointTracker } from '../../../src/pipeline/checkpoint-tracker.js';

describe('CheckpointTracker', () => {
  it('advances only to the end of the finished prefix', () => {
    const t = new CheckpointTracker();
    const a = t.begin({ value: 1, key: 'a' });
    const b = t.begin({ value: 2, key: 'b' });
    const c = t.begin({ value: 3, key: 'c' });
    t.finish(c);
    expect(t.safePosition()).toBeUndefined(); // a and b are still in flight
    t.finish(a);
    expect(t.safePosition()).toEqual({ value: 1, key: 'a' });
    t.finish(b);
    expect(t.safePosition()).toEqual({ value: 3, key: 'c' });
    expect(t.pending).toBe(0);
  });

  it('offers no mid-run position once cursors go backwards, and the highest at the end', () => {
    const t = new CheckpointTracker();
    const seqs = [5, 9, 3, 7].map((v) => t.begin({ value: v }));
    seqs.slice(0, 2).forEach((s) => t.finish(s));
    expect(t.sorted).toBe(false);
    expect(t.safePosition()).toBeUndefined();
    expect(t.finalPosition()).toBeUndefined(); // two records still pending
    seqs.slice(2).forEach((s) => t.finish(s));
    expect(t.finalPosition()).toEqual({ value: 9 });
  });

  it('treats a group reaching below an earlier position as out of order', () => {
    const t = new CheckpointTracker();
    // Group a spans cursors 1..5, group b 2..6: storing 5 after a would make
    // the next read see b's record 6 alone.
    const a = t.begin({ value: 5, key: 'a' }, 1);
    t.begin({ value: 6, key: 'b' }, 2);
    t.finish(a);
    expect(t.sorted).toBe(false);
    expect(t.safePosition()).toBeUndefined();
    const u = new CheckpointTracker();
    const c = u.begin({ value: 5, key: 'c' }, 1);
    u.begin({ value: 9, key: 'd' }, 6);
    u.finish(c);
    expect(u.safePosition()).toEqual({ value: 5, key: 'c' });
  });

  it('keeps ties in order and treats records without a cursor as finished work', () => {
    const t = new CheckpointTracker();
    const a = t.begin({ value: '2024-01-01T00:00:00Z', key: '1' });
    const b = t.begin();
    const c = t.begin({ value: '2024-01-01T00:00:00Z', key: '2' });
    t.finish(b);
    t.finish(a);
    expect(t.safePosition()).toEqual({ value: '2024-01-01T00:00:00Z', key: '1' });
    t.finish(c);
    expect(t.sorted).toBe(true);
    expect(t.finalPosition()).toEqual({ value: '2024-01-01T00:00:00Z', key: '2' });
  });

  it('ends a sorted read at the last position read, whatever the text order of keys', () => {
    const t = new CheckpointTracker();
    // A database orders integer keys numerically: 9 comes before 10.
    const seqs = [t.begin({ value: '2024-01-01', key: '9' }), t.begin({ value: '2024-01-01', key: '10' })];
    seqs.forEach((s) => t.finish(s));
    expect(t.finalPosition()).toEqual({ value: '2024-01-01', key: '10' });
  });
});

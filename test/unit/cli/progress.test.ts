import { describe, expect, it } from 'vitest';
import { etaText } from '../../../src/cli/progress.js';

describe('etaText (the progress bar ETA)', () => {
  it('extrapolates the rate so far to the estimated total', () => {
    expect(etaText(1000, 3000, 10)).toBe(' | ETA 20 s');
    expect(etaText(100, 200_000, 3)).toBe(' | ETA 1h 40m');
    expect(etaText(50_000, 200_000, 30)).toBe(' | ETA 1m 30s');
  });

  it('shows no ETA, never NaN or Infinity, when there is nothing to go on', () => {
    for (const [read, total, seconds] of [
      [0, 200_000, 5],
      [10, undefined, 5],
      [10, 0, 5],
      [10, 100, 0],
      [200_001, 200_000, 5],
      [200_000, 200_000, 5],
      [Number.NaN, 100, 5],
    ] as const) {
      const text = etaText(read, total, seconds);
      expect(text, `${read}/${total} after ${seconds}s`).toBe('');
    }
  });
});

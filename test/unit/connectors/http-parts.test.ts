import { describe, expect, it } from 'vitest';
import { incrementalParam } from '../../../connectors/sources/http/incremental.js';
import { nextFromLinkHeader } from '../../../connectors/sources/http/paginate.js';
import { TokenBucket } from '../../../src/sdk/transport/token-bucket.js';
import { abortedError, isFerryError } from '../../../src/sdk/index.js';

describe('http Link header', () => {
  it('finds rel="next" among several links and relation lists', () => {
    expect(nextFromLinkHeader('<https://x/p2>; rel="next", <https://x/p9>; rel="last"')).toBe('https://x/p2');
    expect(nextFromLinkHeader('<https://x/p9>; rel="last", </p3?a=1,2>; title="x"; rel="prefetch next"')).toBe('/p3?a=1,2');
    expect(nextFromLinkHeader('<https://x/p2>; REL=next')).toBe('https://x/p2');
    expect(nextFromLinkHeader('<https://x/p1>; rel="prev"')).toBeUndefined();
    expect(nextFromLinkHeader(null)).toBeUndefined();
    expect(nextFromLinkHeader('garbage')).toBeUndefined();
  });
});

describe('http incremental parameter', () => {
  const option = (format: 'raw' | 'iso' | 'unix' | 'unix_ms', start?: string | number) => ({ param: 'since', format, in: 'query' as const, ...(start !== undefined ? { start } : {}) });
  const after = (value: string | number, lag?: number) => ({ cursorField: 'updated_at', after: { value }, ...(lag ? { lag } : {}) });

  it('sends nothing without a stored cursor or start', () => {
    expect(incrementalParam(option('raw'), { cursorField: 'x' })).toBeUndefined();
    expect(incrementalParam(option('raw'), undefined)).toBeUndefined();
    expect(incrementalParam(option('unix', '2024-01-01T00:00:00Z'), undefined)).toBe('1704067200');
  });

  it('formats timestamps and numbers', () => {
    expect(incrementalParam(option('raw'), after('2024-01-01 10:00:00'))).toBe('2024-01-01 10:00:00');
    expect(incrementalParam(option('iso'), after('2024-01-01 10:00:00'))).toBe('2024-01-01T10:00:00.000Z');
    expect(incrementalParam(option('iso'), after('2024-01-01T10:00:00.123456+02:00'))).toBe('2024-01-01T10:00:00.123456+02:00');
    expect(incrementalParam(option('iso'), after(1704067200))).toBe('2024-01-01T00:00:00.000Z');
    expect(incrementalParam(option('unix'), after('2024-01-01T00:00:01.900Z'))).toBe('1704067201');
    expect(incrementalParam(option('unix_ms'), after('1704067200'))).toBe('1704067200000');
    expect(incrementalParam(option('unix'), after(1704067200123))).toBe('1704067200');
  });

  it('lowers the value by lag: seconds for timestamps, units for numbers', () => {
    expect(incrementalParam(option('iso'), after('2024-01-01T00:10:00Z', 600))).toBe('2024-01-01T00:00:00.000Z');
    expect(incrementalParam(option('raw'), after(500, 20))).toBe('480');
  });

  it('refuses a cursor that is not a timestamp when a time format is asked for', () => {
    let error: unknown;
    try {
      incrementalParam(option('unix'), after('abc'));
    } catch (caught) {
      error = caught;
    }
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
  });
});

describe('http token bucket', () => {
  function clock() {
    const state = { time: 0, sleeps: [] as number[] };
    return {
      state,
      now: () => state.time,
      sleep: async (ms: number, signal?: AbortSignal) => {
        if (signal?.aborted) throw abortedError(signal, 'wait');
        state.sleeps.push(ms);
        state.time += ms;
      },
    };
  }

  it('lets a burst through, then paces at the rate', async () => {
    const c = clock();
    const bucket = new TokenBucket(4, c);
    const at: number[] = [];
    for (let i = 0; i < 8; i++) {
      await bucket.take();
      at.push(c.state.time);
    }
    expect(at).toEqual([0, 0, 0, 0, 250, 500, 750, 1000]);
  });

  it('refills while idle, up to the burst size only', async () => {
    const c = clock();
    const bucket = new TokenBucket(2, c);
    for (let i = 0; i < 2; i++) await bucket.take();
    c.state.time += 60_000;
    const at: number[] = [];
    for (let i = 0; i < 3; i++) {
      await bucket.take();
      at.push(c.state.time - 60_000);
    }
    expect(at).toEqual([0, 0, 500]);
  });

  it('handles rates below one per second', async () => {
    const c = clock();
    const bucket = new TokenBucket(0.5, c);
    await bucket.take();
    await bucket.take();
    expect(c.state.time).toBe(2000);
  });

  it('serves concurrent callers in order and survives an aborted wait', async () => {
    const c = clock();
    const bucket = new TokenBucket(1, c);
    await bucket.take();
    const aborted = new AbortController();
    aborted.abort();
    const order: string[] = [];
    await Promise.all([
      bucket.take(aborted.signal).catch(() => order.push('aborted')),
      bucket.take().then(() => order.push('second')),
    ]);
    expect(order).toEqual(['aborted', 'second']);
  });
});

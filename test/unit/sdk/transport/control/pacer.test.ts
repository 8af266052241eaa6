import { describe, it, expect } from 'vitest';
import { Pacer } from '../../../../../src/sdk/transport/control/pacer.js';
import { AdaptiveRateLimiter } from '../../../../../src/sdk/transport/control/rate-limiter.js';
import { TimerClock } from '../../../sink/fake-service.js';

/** The delays a train of `n` requests, all ready at `now`, gets from the pacer. */
function train(pacer: Pacer, now: number, n: number): number[] {
  return Array.from({ length: n }, () => pacer.delay(now));
}

describe('Pacer', () => {
  it('lets everything go at once before it has seen a round trip', () => {
    const pacer = new Pacer(16);
    expect(train(pacer, 1000, 16)).toEqual(Array(16).fill(0));
  });

  it('spreads a train of requests over the round trip, a little faster than the slots allow', () => {
    const pacer = new Pacer(16);
    pacer.onRoundTrip(0, 20);
    const delays = train(pacer, 1000, 16);
    // 20 ms ÷ (16 slots × 1.25) = 1 ms apart; the first three fall within the 2 ms burst.
    expect(delays).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    // The whole wave has gone before its first answer is back: the slots, not the pacer, set the rate.
    expect(Math.max(...delays)).toBeLessThan(20);
  });

  it('never delays requests that already go at an even spread', () => {
    const pacer = new Pacer(16);
    pacer.onRoundTrip(0, 20);
    // One request per 1.25 ms: what 16 slots reach at a 20 ms round trip.
    const delays = Array.from({ length: 64 }, (_, i) => pacer.delay(1000 + i * 1.25));
    expect(delays.every((d) => d === 0)).toBe(true);
  });

  it('keeps the shortest round trip: a slower answer does not slow the pace', () => {
    const pacer = new Pacer(16);
    pacer.onRoundTrip(0, 20);
    pacer.onRoundTrip(0, 80);
    expect(train(pacer, 1000, 4)).toEqual([0, 0, 0, 1]);
  });

  it('does not pace a fast service, where the burst covers the whole round trip', () => {
    const pacer = new Pacer(16);
    pacer.onRoundTrip(0, 1);
    expect(train(pacer, 1000, 200).every((d) => d === 0)).toBe(true);
  });
});

describe('AdaptiveRateLimiter pacing', () => {
  function recordingLimiter(concurrency: number) {
    let time = 1000;
    const sleeps: number[] = [];
    const clock = { now: () => time, sleep: (ms: number) => (sleeps.push(ms), Promise.resolve()) };
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, concurrency, clock });
    return { limiter, sleeps, at: (ms: number) => (time = ms) };
  }

  it('spreads a train once the service has answered: the round trip is learnt from the answers', async () => {
    const { limiter, sleeps, at } = recordingLimiter(16);
    await limiter.acquire();
    at(1020);
    limiter.onAnswer(false, undefined, 1000);
    for (let i = 0; i < 6; i++) await limiter.acquire();
    expect(sleeps).toEqual([1, 2, 3]);
  });

  it('learns no round trip from a 429, which a service answers faster than a write', async () => {
    const { limiter, sleeps, at } = recordingLimiter(16);
    await limiter.acquire();
    at(1020);
    limiter.onAnswer(false, undefined, 1000);
    at(1021);
    // A 429 after 0.1 ms would set the pace to 160,000 requests/s, which is no pacing at all.
    limiter.onAnswer(true, undefined, 1020.9);
    at(1040);
    for (let i = 0; i < 6; i++) await limiter.acquire();
    expect(sleeps).toEqual([1, 2, 3]);
  });

  it('breaks up a train: eight slots against a service answering in 20 ms end up spread over the round trip', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, concurrency: 8, clock });
    const start = clock.now();
    const sent: number[] = [];
    const slot = async () => {
      for (let i = 0; i < 10; i++) {
        await limiter.acquire();
        const sentAt = clock.now();
        sent.push(sentAt - start);
        await clock.sleep(20);
        limiter.onAnswer(false, undefined, sentAt);
      }
    };
    await Promise.all(Array.from({ length: 8 }, slot));
    // The first wave goes at once (no round trip seen yet); from the second on, at most three in any millisecond.
    const later = sent.filter((t) => t >= 20);
    expect(sent.filter((t) => t < 1)).toHaveLength(8);
    for (const t of later) expect(later.filter((u) => u >= t && u < t + 1).length).toBeLessThanOrEqual(3);
    // Spreading costs the slots nothing: 80 requests in about ten round trips, not more.
    expect(Math.max(...sent)).toBeLessThan(10 * 20 + 20);
  });
});

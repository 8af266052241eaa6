import { describe, it, expect } from 'vitest';
import { AdaptiveRateLimiter } from '../../../src/sink/rate-limiter.js';
import { FakeClock } from './fake-service.js';

describe('AdaptiveRateLimiter', () => {
  it('counts simultaneous 429s as one cut', () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 40, clock });
    for (let i = 0; i < 8; i++) limiter.onThrottle(undefined);
    expect(limiter.currentRate).toBe(20);
    clock.time += 100; // past the 50 ms spacing at 20/s: a new signal
    limiter.onThrottle(undefined);
    expect(limiter.currentRate).toBe(10);
  });

  it('raises the rate at most one step per interval, however many successes', () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 40, increaseStep: 2, clock });
    limiter.onThrottle(undefined);
    for (let i = 0; i < 100; i++) limiter.onSuccess();
    expect(limiter.currentRate).toBe(20); // the cut was just now
    clock.time += 1000;
    for (let i = 0; i < 100; i++) limiter.onSuccess();
    expect(limiter.currentRate).toBe(22);
    for (let s = 0; s < 20; s++) {
      clock.time += 1000;
      for (let i = 0; i < 10; i++) limiter.onSuccess();
    }
    expect(limiter.currentRate).toBe(40); // capped at the ceiling
  });

  it('spaces acquisitions by 1/rate and holds everyone through a Retry-After pause', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 4, clock });
    const at: number[] = [];
    for (let i = 0; i < 3; i++) {
      await limiter.acquire();
      at.push(clock.now());
    }
    limiter.onThrottle(5000);
    await limiter.acquire();
    at.push(clock.now());
    const t0 = at[0]!;
    expect(at.map((t) => t - t0)).toEqual([0, 250, 500, 5500]);
  });
});

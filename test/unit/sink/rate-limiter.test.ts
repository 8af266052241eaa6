import { describe, it, expect } from 'vitest';
import { AdaptiveRateLimiter } from '../../../src/sink/rate-limiter.js';
import { RateController } from '../../../src/sink/rate-controller.js';
import { FakeClock } from './fake-service.js';

/**
 * A token bucket service on the virtual clock: answers `throttled` when its
 * bucket (rate, burst) is empty.
 */
function bucketService(clock: FakeClock, perSecond: number, burst: number) {
  let tokens = burst;
  let at = clock.now();
  return () => {
    tokens = Math.min(burst, tokens + ((clock.now() - at) * perSecond) / 1000);
    at = clock.now();
    if (tokens >= 1) {
      tokens -= 1;
      return false;
    }
    return true;
  };
}

/** Send `seconds` worth of requests through the limiter, one after the other, each answered by `answer`. */
async function drive(clock: FakeClock, limiter: AdaptiveRateLimiter, answer: () => boolean, seconds: number) {
  const end = clock.now() + seconds * 1000;
  let sent = 0;
  let throttled = 0;
  while (clock.now() < end) {
    await limiter.acquire();
    sent++;
    const refused = answer();
    if (refused) throttled++;
    limiter.onAnswer(refused, refused ? 1000 : undefined);
  }
  return { sent, throttled, accepted: sent - throttled };
}

describe('AdaptiveRateLimiter', () => {
  it('hands out tokens without waiting while the ceiling is far above the demand', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, clock });
    for (let i = 0; i < 1000; i++) {
      await limiter.acquire();
      clock.time += 1; // 1000 requests/s asked for
    }
    expect(clock.sleeps).toEqual([]);
  });

  it('spaces requests by 1/rate once the bucket is empty, each waiter reserving its own turn', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 4, clock });
    const waits: Promise<void>[] = [];
    const sleeps: number[] = [];
    const recording = { now: clock.now, sleep: (ms: number) => (sleeps.push(ms), Promise.resolve()) };
    const spaced = new AdaptiveRateLimiter({ maxPerSecond: 4, clock: recording });
    for (let i = 0; i < 4; i++) waits.push(spaced.acquire());
    await Promise.all(waits);
    // One token to start with; the next three wait 250, 500 and 750 ms from now, without queuing on each other.
    expect(sleeps).toEqual([250, 500, 750]);
    expect(limiter.currentRate).toBe(4);
  });

  it('finds a 100 req/s limit from a ceiling 10× too high: ≥ 95 % used, ≤ 2 % refused', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    const result = await drive(clock, limiter, bucketService(clock, 100, 10), 60);
    expect(result.accepted / 60).toBeGreaterThanOrEqual(95);
    expect(result.throttled / result.sent).toBeLessThanOrEqual(0.02);
  });

  it('with the ceiling set to the limit, is never refused', async () => {
    const clock = new FakeClock();
    clock.time += 5000; // the service's bucket is full when the run starts
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100, clock });
    const result = await drive(clock, limiter, bucketService(clock, 100, 10), 30);
    expect(result.throttled).toBe(0);
  });

  it('does not starve when the service refuses a fixed share whatever the rate', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    let n = 0;
    const result = await drive(clock, limiter, () => ++n % 10 === 0, 30); // every tenth refused
    // The rate may dip once while the controller learns the share is not the rate's doing, then stays high.
    expect(limiter.currentRate).toBeGreaterThan(500);
    expect(result.sent / 30).toBeGreaterThan(500);
  });
});

describe('RateController', () => {
  it('decides once per window, however many 429s arrive in it', () => {
    const controller = new RateController({ ceiling: 1000, minWindowMs: 100, minWindowAnswers: 10 }, 0);
    controller.noteLimited();
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(controller.onAnswer(i % 2 === 0, 1 + i));
    // The window closed early on its 4th 429 (a third of its answers or more): one decrease.
    expect(decisions.filter((d) => d.change === 'decrease')).toHaveLength(1);
    expect(controller.rate).toBeLessThanOrEqual(700);
    expect(controller.rate).toBeGreaterThanOrEqual(250);
  });

  it('holds new requests when the service accepted nothing in two windows in a row', () => {
    const controller = new RateController({ ceiling: 40 }, 0);
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(controller.onAnswer(true, i));
    expect(decisions.filter((d) => d.change !== 'none')).toEqual([
      { change: 'decrease', rate: 20 },
      { change: 'hold', rate: 10 },
    ]);
  });

  it('raises the rate only when it held requests back, and never above the ceiling', () => {
    const controller = new RateController({ ceiling: 50, minWindowMs: 10, minWindowAnswers: 1 }, 0);
    for (let i = 0; i < 4; i++) controller.onAnswer(true, 0.1 * i);
    const cut = controller.rate;
    expect(cut).toBeLessThan(50);
    let t = 100;
    expect(controller.onAnswer(false, (t += 20))).toEqual({ change: 'none' }); // the rate did not bind: no reason to climb
    for (let i = 0; i < 100; i++) {
      controller.noteLimited();
      controller.onAnswer(false, (t += 20));
    }
    expect(controller.rate).toBe(50);
  });
});

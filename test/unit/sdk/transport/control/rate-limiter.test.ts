import { describe, it, expect } from 'vitest';
import { AdaptiveRateLimiter } from '../../../../../src/sdk/transport/control/rate-limiter.js';
import { RateController } from '../../../../../src/sdk/transport/control/rate-controller.js';
import { monotonicClock } from '../../../../../src/sdk/clock.js';
import { FakeClock, TimerClock } from '../../../sink/fake-service.js';

/**
 * A token bucket service on the virtual clock: answers `throttled` when its
 * bucket (rate, burst) is empty.
 */
/** Starts `n` acquisitions at once: `sent` fills with when each got its turn (ms after now), `all` settles when every one has. */
function acquireMany(limiter: AdaptiveRateLimiter, clock: TimerClock, n: number): { sent: number[]; all: Promise<unknown> } {
  const start = clock.now();
  const sent: number[] = [];
  const all = Promise.all(Array.from({ length: n }, () => limiter.acquire().then(() => sent.push(clock.now() - start))));
  return { sent, all };
}

function bucketService(clock: FakeClock, perSecond: number | (() => number), burst: number) {
  const rate = typeof perSecond === 'number' ? () => perSecond : perSecond;
  let tokens = burst;
  let at = clock.now();
  return () => {
    tokens = Math.min(burst, tokens + ((clock.now() - at) * rate()) / 1000);
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

  it('spaces requests by 1/rate once the bucket is empty, serving those waiting in arrival order', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 4, clock });
    const start = clock.now();
    const went: [number, number][] = [];
    await Promise.all(Array.from({ length: 4 }, (_, i) => limiter.acquire().then(() => went.push([i, clock.now() - start]))));
    // One token to start with; the next three go 250, 500 and 750 ms from now, in the order they asked.
    expect(went).toEqual([[0, 0], [1, 250], [2, 500], [3, 750]]);
    expect(limiter.currentRate).toBe(4);
  });

  it('a faster rate applies to requests already waiting (a slow start is not held to its first rate)', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 50, clock });
    const start = clock.now();
    const went: number[] = [];
    const waits = Array.from({ length: 16 }, () => limiter.acquire().then(() => went.push(clock.now() - start)));
    // At 50/s the sixteenth would go 300 ms from now. Answers come back and the slow start grows the rate meanwhile.
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      limiter.onAnswer(false, undefined, clock.now());
    }
    await Promise.all(waits);
    expect(limiter.currentRate).toBeGreaterThan(50);
    expect(went.at(-1)!).toBeLessThan(300);
  });

  it('finds a 100 req/s limit from a ceiling 10× too high: ≥ 95 % used, ≤ 2 % refused', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    const result = await drive(clock, limiter, bucketService(clock, 100, 10), 60);
    expect(result.accepted / 60).toBeGreaterThanOrEqual(95);
    expect(result.throttled / result.sent).toBeLessThanOrEqual(0.02);
  });

  it('probes a limit it keeps finding ever less often: each probe past it costs 429s', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    const service = bucketService(clock, 100, 10);
    const start = clock.now();
    const decreases: number[] = [];
    let lastRate = limiter.currentRate;
    let acceptedLater = 0;
    let throttledLater = 0;
    while (clock.now() < start + 120_000) {
      await limiter.acquire();
      const refused = service();
      limiter.onAnswer(refused, refused ? 1000 : undefined);
      if (limiter.currentRate < lastRate) decreases.push(clock.now() - start);
      lastRate = limiter.currentRate;
      if (clock.now() - start < 60_000) continue;
      if (refused) throttledLater++;
      else acceptedLater++;
    }
    // Probing at 1 % of the limit per window throughout, the second minute had 28 decreases (a probe every ~2 s) and
    // 0.6 % of its requests refused; found again within 5 %, the limit is probed at a quarter of that pace: 8, 0.15 %.
    expect(decreases.filter((t) => t >= 60_000).length).toBeLessThanOrEqual(10);
    expect(throttledLater / (acceptedLater + throttledLater)).toBeLessThan(0.003);
    expect(acceptedLater / 60).toBeGreaterThanOrEqual(97);
  });

  it('finds a limit that grew, after it had been found the same again and again, within 15 s', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    let perSecond = 100;
    const service = bucketService(clock, () => perSecond, 10);
    const start = clock.now();
    let grewAt: number | undefined;
    let foundAt: number | undefined;
    while (clock.now() < start + 120_000 && foundAt === undefined) {
      await limiter.acquire();
      const refused = service();
      limiter.onAnswer(refused, refused ? 1000 : undefined);
      if (grewAt === undefined && clock.now() - start >= 60_000) {
        grewAt = clock.now();
        perSecond = 200;
      }
      if (grewAt !== undefined && limiter.currentRate >= 180) foundAt = clock.now();
    }
    // The price of probing a confirmed limit slowly: 10 s to find twice the limit (3.6 s when every probe went at 1 %).
    expect(foundAt).toBeDefined();
    expect(foundAt! - grewAt!).toBeLessThan(15_000);
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
  it('slow start: begins at the start rate and doubles every few tens of milliseconds while the rate binds', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 320, clock });
    expect(limiter.currentRate).toBe(320);
    const start = clock.now();
    while (limiter.currentRate < 5000 && clock.now() - start < 10_000) {
      await limiter.acquire();
      limiter.onAnswer(false, undefined, clock.now());
    }
    // From 320 to 5,000 requests/s in well under half a second: a fast service loses a fraction of that.
    expect(clock.now() - start).toBeLessThan(300);
  });

  it('slow start from a modest rate finds a 100 req/s limit with few 429s', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, startPerSecond: 160, clock });
    const result = await drive(clock, limiter, bucketService(clock, 100, 10), 15);
    expect(result.accepted / 15).toBeGreaterThanOrEqual(95);
    expect(result.throttled / result.sent).toBeLessThanOrEqual(0.02);
  });

  it('an abort rejects those waiting at once and leaves no timer behind to keep the process alive', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 0.5, clock: monotonicClock });
    await limiter.acquire();
    const controller = new AbortController();
    // At half a request per second the next two would wait 2 and 4 s.
    const waits = [limiter.acquire(controller.signal), limiter.acquire(controller.signal)];
    expect(timers()).toBe(before + 1);
    controller.abort();
    for (const wait of waits) await expect(wait).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    expect(timers()).toBe(before);
    // Nobody waits now: the next request takes the line's place as if it had been empty.
    const late = limiter.acquire(controller.signal);
    await expect(late).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
  });

  it('earns no tokens before the first request: a late first record does not start with a burst', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    clock.time += 5000; // the pusher was made long before the first record reached it
    const start = clock.now();
    const went: number[] = [];
    await Promise.all(Array.from({ length: 5 }, () => limiter.acquire().then(() => went.push(clock.now() - start))));
    // One token to start with, then one each millisecond.
    expect(went).toEqual([0, 1, 2, 3, 4]);
  });

  it('on a decrease drops the tokens saved up, and those waiting go at the new rate', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock, minWindowMs: 0, minWindowAnswers: 4 });
    // Eight requests wait for turns 1 ms apart at 1,000/s …
    const { sent, all } = acquireMany(limiter, clock, 8);
    // … then the service refuses four in a row: the rate halves before they go.
    for (let i = 0; i < 4; i++) limiter.onAnswer(true, 1000, clock.now());
    expect(limiter.currentRate).toBe(500);
    await all;
    // The first went at once; the other seven went 2 ms apart, at the new rate.
    expect(sent[0]).toBe(0);
    for (let i = 2; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(2);
  });
  it('a request that took its token but still waits for the pacer when the rate is cut waits for a token at the new rate', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, concurrency: 4, clock, minWindowMs: 0, minWindowAnswers: 4 });
    await limiter.acquire();
    // A 20 ms round trip: the pacer spaces requests 4 ms apart (4 slots, × 1.25).
    limiter.onAnswer(false, undefined, clock.now() - 20);
    clock.time += 100; // 50 tokens saved up (50 ms of the ceiling)
    const { sent, all } = acquireMany(limiter, clock, 6);
    // All six took a token; five wait for their turn with the pacer when three windows of mostly 429s cut the rate to 125/s.
    for (let i = 0; i < 12; i++) limiter.onAnswer(i % 4 !== 3, 1000, i % 4 !== 3 ? clock.now() : undefined);
    expect(limiter.currentRate).toBe(125);
    await all;
    // The first had gone; the others go one every 8 ms, at the new rate (before the fix: at 2, 6, 10, 14 and 18 ms).
    expect(sent[0]).toBe(0);
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(8);
  });

  it('a request asked not to be spread goes at once with its token; the others still wait for their turn with the pacer', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, concurrency: 4, clock });
    await limiter.acquire();
    // A 20 ms round trip: the pacer spaces requests 4 ms apart (4 slots, × 1.25).
    limiter.onAnswer(false, undefined, clock.now() - 20);
    clock.time += 100;
    const unspread = Array.from({ length: 6 }, () => limiter.tryAcquire(undefined, false));
    expect(unspread).toEqual(Array.from({ length: 6 }, () => undefined));
    const paced = Array.from({ length: 3 }, () => limiter.tryAcquire(undefined, true));
    expect(paced[0]).toBeUndefined();
    expect(paced.slice(1).every((turn) => turn instanceof Promise)).toBe(true);
    await Promise.all(paced.filter((turn): turn is Promise<void> => turn !== undefined));
  });

  it('in the slow start, a 429 drops the tokens saved up: the next requests go at the rate, not as a burst', async () => {
    const clock = new TimerClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 200, clock });
    await limiter.acquire();
    clock.time += 100; // 10 tokens saved up (50 ms at 200/s)
    limiter.onAnswer(true, 1000, clock.now()); // one 429: not yet a limit, and the slow start goes on
    expect(limiter.currentRate).toBe(200);
    const { sent, all } = acquireMany(limiter, clock, 5);
    await all;
    // One every 5 ms (200/s); with the saved tokens all five went at once.
    expect(sent).toEqual([5, 10, 15, 20, 25]);
  });
});

/**
 * A reader one request at a time (the http source): each request waits for
 * its answer, a 429 waits out its Retry-After (1 s) before it is sent again,
 * and nothing else goes meanwhile. `refused` answers each request; `roundTripMs`
 * is how long each takes. Returns the 429s and the time it took.
 */
async function readOneAtATime(clock: FakeClock, limiter: AdaptiveRateLimiter, refused: () => boolean, requests: number, roundTripMs = 3) {
  const start = clock.now();
  let throttled = 0;
  for (let i = 0; i < requests; i++) {
    for (;;) {
      await limiter.acquire();
      const sentAt = clock.now();
      clock.time += roundTripMs;
      const refusedNow = refused();
      limiter.onAnswer(refusedNow, refusedNow ? 1000 : undefined, sentAt);
      if (!refusedNow) break;
      throttled++;
      await clock.sleep(1000);
    }
  }
  return { throttled, seconds: (clock.now() - start) / 1000 };
}

describe('AdaptiveRateLimiter for a reader one request at a time (a 429 halts it for the whole Retry-After)', () => {
  it('learns a 40/s bucket (burst 5) from the first 429s alone: few 429s, not one after every wait', async () => {
    const clock = new FakeClock();
    clock.time += 5000; // the API's bucket is full when the read starts
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 50, clock });
    const { throttled, seconds } = await readOneAtATime(clock, limiter, bucketService(clock, 40, 5), 91);
    // Resumed at full speed, every wait's refilled burst went at once into the next 429: one 429 a second, 91 requests
    // in some 15 s. Resumed at half the rate the clean run showed, the read goes on without one.
    expect(throttled).toBeLessThanOrEqual(2);
    expect(limiter.currentRate).toBeLessThan(40);
    expect(seconds).toBeLessThan(5);
  });

  it('learns a 30/s bucket with a burst of one, where each clean run is a single request', async () => {
    const clock = new FakeClock();
    clock.time += 5000;
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 50, clock });
    const { throttled, seconds } = await readOneAtATime(clock, limiter, bucketService(clock, 30, 1), 91);
    expect(throttled).toBeLessThanOrEqual(3);
    expect(seconds).toBeLessThan(8);
  });

  it('a bucket with a long burst: two halts measure its rate (what the longer run let through beyond the shorter)', async () => {
    const clock = new FakeClock();
    clock.time += 5000;
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 50, clock });
    const { throttled } = await readOneAtATime(clock, limiter, bucketService(clock, 40, 40), 300);
    expect(throttled).toBeLessThanOrEqual(3);
    // Halving alone would have left it at about 26/s.
    expect(limiter.currentRate).toBeGreaterThan(34);
    expect(limiter.currentRate).toBeLessThan(40);
  });

  it('does not starve on a service refusing a tenth at random: halts after ever shorter clean runs are not the rate\'s', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 100_000, startPerSecond: 50, clock });
    const { throttled, seconds } = await readOneAtATime(clock, limiter, () => random() < 0.1, 2000);
    // The waits are the time that cannot be saved (a second each); the requests themselves take 3 ms each unthrottled.
    const sending = seconds - throttled;
    expect(sending).toBeLessThan(2000 * 0.003 * 1.5);
    expect(limiter.currentRate).toBeGreaterThan(300);
  });

  /** A limiter in its slow start after ten requests one at a time, each accepted 5 ms apart. */
  const afterCleanRun = async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, startPerSecond: 200, clock });
    for (let i = 0; i < 10; i++) {
      await limiter.acquire();
      limiter.onAnswer(false, undefined, clock.now());
      clock.time += 5;
    }
    return { clock, limiter };
  };

  it('once the source has been read to the end, a halt (the last record\'s retry) cuts nothing', async () => {
    const run = async (finished: boolean) => {
      const { clock, limiter } = await afterCleanRun();
      if (finished) limiter.finish();
      const before = limiter.currentRate;
      limiter.onAnswer(true, 1000, clock.now() - 1);
      clock.time += 1000;
      await limiter.acquire();
      return limiter.currentRate / before;
    };
    expect(await run(false)).toBeLessThan(0.75);
    expect(await run(true)).toBe(1);
  });

  it('a 429 followed by other answers did not halt the sender: it cuts nothing', async () => {
    const { clock, limiter } = await afterCleanRun();
    const before = limiter.currentRate;
    limiter.onAnswer(true, 1000, clock.now() - 1);
    limiter.onAnswer(false, undefined, clock.now() - 1); // another request was in flight
    clock.time += 1000;
    await limiter.acquire();
    expect(limiter.currentRate).toBe(before);
  });
});

describe('AdaptiveRateLimiter at the end of the input', () => {
  it('once told the source has ended, holds just below the 100 req/s limit it found: no 429 keeps the last records waiting', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    const service = bucketService(clock, 100, 10);
    const probing = await drive(clock, limiter, service, 30);
    expect(probing.throttled).toBeGreaterThan(10); // it kept probing past the limit, as it should while input lasts
    limiter.finish();
    expect(limiter.currentRate).toBeLessThan(100);
    // The bucket may be short of tokens right after the last probe: one more decrease at most, then none.
    await drive(clock, limiter, service, 1);
    const last = await drive(clock, limiter, service, 10);
    expect(last.throttled).toBe(0);
    expect(last.accepted / 10).toBeGreaterThanOrEqual(95);
  });

  it('keeps its rate at the end when the service refuses a share whatever the rate: there the 429s are not the probe\'s doing', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ maxPerSecond: 1000, clock });
    let n = 0;
    const everyTenth = () => ++n % 10 === 0;
    await drive(clock, limiter, everyTenth, 30);
    const before = limiter.currentRate;
    limiter.finish();
    expect(limiter.currentRate).toBe(before);
    await drive(clock, limiter, everyTenth, 5);
    expect(limiter.currentRate).toBeGreaterThanOrEqual(before);
  });
});

describe('RateController', () => {
  it("given a share that is a part of the key's limit, judges windows of that part of the answers: four processes probe the key as often as one would", () => {
    const alone = new RateController({ ceiling: 1000 }, 0);
    const quarter = new RateController({ ceiling: 1000 }, 0);
    alone.adopt(25, 0, 'start');
    quarter.adopt(25, 0, 'start', 0.25);
    for (const controller of [alone, quarter]) {
      controller.noteLimited();
      for (let t = 60; t <= 300; t += 60) controller.onAnswer(false, t);
    }
    // Five answers in 300 ms: a window for a quarter of the key's requests (it rises), not for all of them.
    expect(quarter.rate).toBeGreaterThan(25 * 0.97);
    expect(alone.rate).toBeCloseTo(25 * 0.97, 6);
  });

  it('after finish(), stays below the last limit found, still lowers on congestion, and keeps climbing where it never found one', () => {
    const limited = new RateController({ ceiling: 200, minWindowMs: 100, minWindowAnswers: 1 }, 0);
    let t = 0;
    for (let i = 0; i < 100; i++) limited.onAnswer(false, (t += 10));
    const sent = t;
    for (let i = 0; i < 20; i++) limited.onAnswer(i % 2 === 0, (t += 5), sent); // a limit of about 100/s
    for (let w = 0; w < 10; w++) {
      limited.noteLimited();
      limited.onAnswer(false, (t += 150));
    }
    const probed = limited.rate;
    expect(probed).toBeGreaterThan(100); // past the limit, probing
    limited.finish();
    const settled = limited.rate;
    expect(settled).toBeLessThan(100);
    for (let w = 0; w < 20; w++) {
      limited.noteLimited();
      expect(limited.onAnswer(false, (t += 150))).toEqual({ change: 'none' });
    }
    expect(limited.rate).toBe(settled);
    const before = t;
    for (let i = 0; i < 4; i++) limited.onAnswer(true, (t += 1), before + 1);
    expect(limited.rate).toBeLessThan(settled);

    // A slow start that has seen no 429 yet knows no limit: it goes on growing.
    const unlimited = new RateController({ ceiling: 1000, initial: 50 }, 0);
    unlimited.finish();
    let u = 0;
    for (let i = 0; i < 200; i++) {
      unlimited.noteLimited();
      unlimited.onAnswer(false, (u += 5));
    }
    expect(unlimited.rate).toBeGreaterThan(100);
  });

  it('a slow start ended by chance by random 429s takes no limit below what the service accepted over the last second', () => {
    // The rate never binds (the client sends 5,000 a second, far above its 50/s start), so the slow start's own
    // estimate of the limit is its rate, 50/s: but the service accepted 4,500 a second, refusing every 10th at random.
    const controller = new RateController({ ceiling: 20_000, initial: 50 }, 0);
    let t = 0;
    for (let i = 0; i < 10_000; i++) controller.onAnswer(i % 10 === 9, (t += 0.2), t);
    // A run of 429s the 10 % share cannot explain, to requests sent together: the slow start ends, once.
    const sent = t;
    const decisions = [];
    for (let i = 0; i < 12; i++) decisions.push(controller.onAnswer(true, (t += 0.2), sent));
    expect(decisions.filter((d) => d.change === 'decrease')).toHaveLength(1);
    expect(controller.rate).toBeGreaterThan(4_000);
    expect(controller.rate).toBeLessThan(4_700);
  });

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

  it('at a rate too low to fill a window of twenty answers soon, a window of five that lasted two seconds decides: a rate pushed near the floor climbs back in seconds, not minutes', () => {
    const controller = new RateController({ ceiling: 100 }, 0);
    for (let i = 0; i < 4; i++) controller.onAnswer(true, 0.1 * i);
    for (let t = 0; controller.rate > 1.5; t += 300) controller.onAnswer(true, 1000 + t, 1000 + t);
    let t = 60_000;
    const from = t;
    // One request a second, each accepted, the rate binding: before, each window waited for twenty answers (20 s).
    while (controller.rate < 10 && t - from < 120_000) {
      controller.noteLimited();
      t += 1000 / controller.rate;
      controller.onAnswer(false, t, t - 5);
    }
    expect(controller.rate).toBeGreaterThanOrEqual(10);
    expect(t - from).toBeLessThan(45_000);
  });

  it('a congestion right after the client stalled cuts mildly: what was accepted measured the client, not the service', () => {
    const controller = new RateController({ ceiling: 100, minWindowMs: 250, minWindowAnswers: 20 }, 0);
    let t = 0;
    // Two seconds at 100/s, all accepted.
    for (let i = 0; i < 200; i++) controller.onAnswer(false, (t += 10));
    // The client stalls for 600 ms, then its requests go in a burst and four are refused.
    t += 600;
    controller.noteLimited(); // the requests queued meanwhile waited for their turns
    for (let i = 0; i < 4; i++) controller.onAnswer(true, (t += 1), t - 1);
    // Not down to the ~40/s accepted over the last second, which was the stall's doing.
    expect(controller.rate).toBeCloseTo(85, 5);
  });

  it('a first clean run that let two through a burst of one (its first request slow) does not make a later run of one look random', () => {
    const controller = new RateController({ ceiling: 1000, initial: 300 }, 0);
    // The run's first request takes 45 ms; the next is accepted too (the bucket earned a token meanwhile), the third refused.
    controller.onAnswer(false, 45, 0);
    controller.onAnswer(false, 50, 47);
    controller.onAnswer(true, 54, 51);
    expect(controller.resumeAfterHalt(1054).change).toBe('decrease');
    const afterFirst = controller.rate;
    // After the wait: one accepted, the next refused (a burst of one, sent faster than it refills).
    controller.onAnswer(false, 1057, 1054);
    controller.onAnswer(true, 1066, 1063);
    expect(controller.resumeAfterHalt(2066).change).toBe('decrease');
    expect(controller.rate).toBeLessThan(afterFirst);
  });

  it('past the slow start\'s estimate, probes 10 % a window until a congestion measures the limit', () => {
    const controller = new RateController({ ceiling: 1000, initial: 50, minWindowMs: 100, minWindowAnswers: 1 }, 0);
    let t = 0;
    // The slow start grows while the rate binds, then a run of 429s ends it with the share accepted since the first.
    for (let i = 0; i < 30; i++) {
      controller.noteLimited();
      controller.onAnswer(false, (t += 5), t);
    }
    for (let i = 0; controller.inSlowStart && i < 40; i++) controller.onAnswer(i % 3 !== 2, (t += 1), t);
    expect(controller.inSlowStart).toBe(false);
    const rates = [controller.rate];
    for (let w = 0; w < 4; w++) {
      controller.noteLimited();
      controller.onAnswer(false, (t += 150), t);
      rates.push(controller.rate);
    }
    const steps = rates.slice(1).map((r, i) => r / rates[i]!);
    for (const step of steps) expect(step).toBeCloseTo(1.1, 5);
    // A congestion measures the limit: from then on the probe near it is gentle again.
    for (let i = 0; i < 200; i++) controller.onAnswer(false, (t += 5), t); // a second of 200/s accepted
    for (let i = 0; i < 20; i++) controller.onAnswer(i % 2 === 0, (t += 1), t);
    const measured = controller.rate;
    controller.noteLimited();
    controller.onAnswer(false, (t += 150), t);
    expect(controller.rate / measured).toBeLessThan(1.02);
  });

  it('past the last limit found, probes faster window by window (the limit may have grown)', () => {
    const controller = new RateController({ ceiling: 200, minWindowMs: 100, minWindowAnswers: 1 }, 0);
    let t = 0;
    // Find a limit of about 100/s: a second at 100/s accepted, then a window of 429s at 200/s.
    for (let i = 0; i < 100; i++) controller.onAnswer(false, (t += 10));
    const sent = t; // all sent together: 429s after the decrease are the same congestion
    for (let i = 0; i < 20; i++) controller.onAnswer(i % 2 === 0, (t += 5), sent);
    const found = controller.rate;
    expect(found).toBeLessThan(110);
    // The service now takes everything: each window raises the rate, by more and more once past the limit.
    const rates = [found];
    for (let w = 0; w < 30; w++) {
      controller.noteLimited();
      controller.onAnswer(false, (t += 150));
      rates.push(controller.rate);
    }
    const steps = rates.slice(1).map((r, i) => r / rates[i]!);
    // Gentle near the limit (1 % of it per window) …
    expect(steps[0]).toBeLessThan(1.02);
    // … then faster and faster: the ceiling (twice the limit found) is reached within 30 windows.
    expect(Math.max(...steps)).toBeGreaterThan(1.05);
    expect(rates.at(-1)!).toBe(200);
  });
});

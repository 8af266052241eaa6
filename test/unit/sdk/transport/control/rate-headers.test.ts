import { describe, expect, it } from 'vitest';
import { announcedLimit, announcedRate, hasRateHeaders } from '../../../../../src/sdk/transport/control/rate-headers.js';
import { RequestControl } from '../../../../../src/sdk/transport/control/request-control.js';
import { TimerClock } from '../../../sink/fake-service.js';

const NOW = Date.UTC(2024, 4, 1);

describe('rate-limit headers', () => {
  it('reads the IETF draft headers: limit, remaining, reset and the policy window', () => {
    const headers = { 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '7', 'ratelimit-policy': '100;w=60' };
    expect(hasRateHeaders(headers)).toBe(true);
    const limit = announcedLimit(headers, NOW);
    expect(limit).toEqual({ limit: 100, windowSeconds: 60, remaining: 0, resetMs: 7000 });
    expect(announcedRate(limit)).toBeCloseTo(100 / 60);
  });

  it("reads the older draft's limit with its window (`100, 100;w=10`)", () => {
    expect(announcedRate(announcedLimit({ 'ratelimit-limit': '100, 100;w=10' }, NOW))).toBe(10);
  });

  it('reads both structured forms of RateLimit with RateLimit-Policy', () => {
    expect(announcedLimit({ ratelimit: 'limit=50, remaining=3, reset=2' }, NOW)).toEqual({ limit: 50, remaining: 3, resetMs: 2000 });
    const limit = announcedLimit({ ratelimit: '"default";r=0;t=5', 'ratelimit-policy': '"default";q=300;w=1, "day";q=100000;w=86400' }, NOW);
    expect(limit).toEqual({ limit: 300, windowSeconds: 1, remaining: 0, resetMs: 5000 });
    expect(announcedRate(limit)).toBe(300);
  });

  it('reads X-RateLimit-* with an epoch reset', () => {
    const limit = announcedLimit({ 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 30) }, NOW);
    expect(limit).toEqual({ limit: 5000, remaining: 0, resetMs: 30_000 });
    // No window: a limit alone says no rate.
    expect(announcedRate(limit)).toBeUndefined();
  });

  it('says nothing for an answer without them, or with garbage', () => {
    expect(hasRateHeaders({ 'content-type': 'application/json' })).toBe(false);
    expect(announcedLimit({ 'ratelimit-remaining': 'lots', 'ratelimit-reset': '-3' }, NOW)).toEqual({});
  });
});

describe('RequestControl and announced limits', () => {
  async function admitted(control: RequestControl, headers: Record<string, string>, clock: TimerClock): Promise<number> {
    const ticket = await control.enter();
    control.leave(ticket, 200, undefined, headers);
    return clock.now();
  }

  it('takes an announced rate at once: just below it, bounding the rate, the slow start over', async () => {
    const clock = new TimerClock();
    const control = new RequestControl({ clock, wallClock: () => NOW });
    await admitted(control, { 'ratelimit-policy': '20;w=1' }, clock);
    const stats = control.stats();
    expect(stats.rate).toBeLessThanOrEqual(20);
    expect(stats.rate).toBeGreaterThan(18);
    expect(stats.rateReason).toBe('throttled');
  });

  it('waits for the reset when none is left, without lowering the rate', async () => {
    const clock = new TimerClock();
    const control = new RequestControl({ clock, wallClock: () => NOW });
    const first = await admitted(control, { 'ratelimit-remaining': '0', 'ratelimit-reset': '3' }, clock);
    const rate = control.stats().rate;
    const pending = control.enter();
    const ticket = await pending;
    expect(clock.now() - first).toBeGreaterThanOrEqual(3000);
    expect(control.stats().rate).toBe(rate);
    control.leave(ticket, 200);
  });
});

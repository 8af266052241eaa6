import { describe, expect, it } from 'vitest';
import { abortedError, isFerryError, type Clock } from '../../../../src/sdk/index.js';
import { CircuitBreaker, type BreakerState } from '../../../../src/sdk/transport/breaker.js';

/** A clock whose sleeps fire when the test moves time past them. */
class ManualClock implements Clock {
  time = 0;
  private timers: { at: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  now(): number {
    return this.time;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = { at: this.time + ms, resolve, reject };
      this.timers.push(timer);
      signal?.addEventListener('abort', () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(abortedError(signal, 'sleep'));
      });
    });
  }
  async advance(ms: number): Promise<void> {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const t of due) t.resolve();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}

describe('CircuitBreaker', () => {
  it('stays closed through failures that other answers interrupt (a fault mix)', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3, clock: new ManualClock() });
    for (let i = 0; i < 100; i++) {
      const ticket = breaker.enter() as { probe: boolean };
      breaker.leave(ticket, i % 3 === 2 ? 'up' : 'down');
    }
    expect(breaker.state).toBe('closed');
    expect(breaker.stats().opened).toBe(0);
  });

  it('opens on failures in a row, lets one probe through at a time with growing waits, and lets everyone go when a probe succeeds', async () => {
    const clock = new ManualClock();
    const states: BreakerState[] = [];
    const breaker = new CircuitBreaker({ failureThreshold: 3, probeBaseMs: 100, probeMaxMs: 400, clock, onStateChange: (state) => states.push(state) });
    for (let i = 0; i < 3; i++) breaker.leave(breaker.enter() as { probe: boolean }, 'down');
    expect(breaker.state).toBe('open');

    const admitted: { n: number; probe: boolean }[] = [];
    const waiting = Array.from({ length: 5 }, (_, n) => Promise.resolve(breaker.enter()).then((t) => admitted.push({ n, probe: t.probe })));
    await clock.advance(99);
    expect(admitted).toHaveLength(0);
    await clock.advance(1);
    expect(admitted).toEqual([{ n: 0, probe: true }]);
    expect(breaker.state).toBe('half-open');

    // The probe fails: the next one waits 200 ms, then 400 (the cap), then 400.
    breaker.leave({ probe: true }, 'down');
    await clock.advance(199);
    expect(admitted).toHaveLength(1);
    await clock.advance(1);
    expect(admitted.map((a) => a.n)).toEqual([0, 1]);
    breaker.leave({ probe: true }, 'down');
    await clock.advance(400);
    expect(admitted.map((a) => a.n)).toEqual([0, 1, 2]);
    expect(breaker.downForMs()).toBe(700);

    // That probe is answered: every waiter goes at once, and later requests pass without waiting.
    breaker.leave({ probe: true }, 'up');
    await Promise.all(waiting);
    expect(admitted.map((a) => a.n)).toEqual([0, 1, 2, 3, 4]);
    expect(admitted.slice(3).every((a) => !a.probe)).toBe(true);
    expect(breaker.state).toBe('closed');
    expect(breaker.enter()).toEqual({ probe: false });
    expect(breaker.stats()).toMatchObject({ opened: 1, probes: 3 });
    expect(states).toEqual(['open', 'half-open', 'open', 'half-open', 'open', 'half-open', 'closed']);
  });

  it('hands the probe on when the probe was never sent, and lets a waiter leave on abort', async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker({ failureThreshold: 1, probeBaseMs: 100, clock });
    breaker.leave(breaker.enter() as { probe: boolean }, 'down');
    const stop = new AbortController();
    const leaving = Promise.resolve(breaker.enter(stop.signal)).catch((error: unknown) => error);
    const next = Promise.resolve(breaker.enter());
    stop.abort();
    expect(isFerryError(await leaving, 'FERRY_ABORTED')).toBe(true);
    await clock.advance(100);
    const ticket = await next;
    expect(ticket.probe).toBe(true);
    const after = Promise.resolve(breaker.enter());
    breaker.leave(ticket, 'unsent');
    await clock.advance(0);
    expect((await after).probe).toBe(true);
  });
});

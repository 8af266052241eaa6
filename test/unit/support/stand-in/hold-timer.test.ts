import { describe, expect, it } from 'vitest';
import { HoldTimer } from '../../../support/stand-in/service.js';

/**
 * A simulated event loop whose timers fire late the way Node's do: at the
 * next whole millisecond after `aim`, plus a fixed slack. No real time passes.
 */
function lateLoop(slackMs: number) {
  let now = 0.37;
  const due: { at: number; run: () => void }[] = [];
  return {
    clock: {
      now: () => now,
      setTimeout: (run: () => void, ms: number) => {
        due.push({ at: Math.ceil(now + Math.max(1, Math.ceil(ms))) + slackMs, run });
      },
    },
    /** Moves time on by `ms`, firing what falls due in order. */
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        due.sort((a, b) => a.at - b.at);
        const next = due[0];
        if (next === undefined || next.at > until) break;
        due.shift();
        now = next.at;
        next.run();
      }
      now = until;
    },
  };
}

describe('HoldTimer', () => {
  it('holds the delay on average where plain timers fire 0.6 ms late, or more', () => {
    for (const slack of [0, 0.6, 1.7]) {
      const loop = lateLoop(slack);
      const hold = new HoldTimer(loop.clock);
      const plain: number[] = [];
      // Requests arriving every 0.3 ms for 3 s, each held 20 ms; beside them, the same with setTimeout as it is.
      for (let i = 0; i < 10_000; i++) {
        const start = loop.clock.now();
        hold.after(20, () => undefined);
        loop.clock.setTimeout(() => plain.push(loop.clock.now() - start), 20);
        loop.advance(0.3);
      }
      loop.advance(100);
      const measured = hold.measured()!;
      const plainMean = plain.reduce((a, b) => a + b, 0) / plain.length;
      expect(measured.holds).toBe(10_000);
      expect(plainMean).toBeGreaterThan(20 + slack + 0.3);
      // The first few hundred holds learn the lateness; the mean over all of them is still within a tenth of a millisecond.
      expect(Math.abs(measured.meanMs - 20)).toBeLessThan(0.1);
      expect(measured.p99Ms).toBeLessThan(21.5 + (slack > 1 ? 1 : 0));
    }
  });

  it('forgets the holds at a reset, but not the lateness it learnt', () => {
    const loop = lateLoop(0.6);
    const hold = new HoldTimer(loop.clock);
    for (let i = 0; i < 2000; i++) {
      hold.after(20, () => undefined);
      loop.advance(0.5);
    }
    loop.advance(100);
    hold.reset();
    expect(hold.measured()).toBeUndefined();
    for (let i = 0; i < 50; i++) {
      hold.after(20, () => undefined);
      loop.advance(0.5);
    }
    loop.advance(100);
    expect(Math.abs(hold.measured()!.meanMs - 20)).toBeLessThan(0.2);
  });
});

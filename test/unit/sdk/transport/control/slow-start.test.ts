import { describe, it, expect } from 'vitest';
import { SlowStart, binomialTail } from '../../../../../src/sdk/transport/control/slow-start.js';

/** A fixed pattern with every tenth answer a 429: a service refusing 10 % at random, whatever the rate. */
const tenth = (i: number) => i % 10 === 7;

describe('SlowStart', () => {
  it('is not ended by a service that refuses a tenth of the requests whatever the rate', () => {
    const start = new SlowStart();
    let grows = 0;
    for (let i = 0; i < 5000; i++) {
      const step = start.onAnswer(tenth(i), i, 1000);
      expect(step).not.toHaveProperty('exit');
      if ('grow' in step && step.grow) grows++;
    }
    // It keeps growing between the 429s (after four accepted answers in a row).
    expect(grows).toBeGreaterThan(2500);
  });

  it('ends on a run of 429s after clean answers, with the limit from the share accepted since the first', () => {
    const start = new SlowStart();
    for (let i = 0; i < 30; i++) expect(start.onAnswer(false, i, 400)).toEqual({ grow: i >= 3 });
    // An empty token bucket at a quarter of the rate: three refused, one accepted, …
    const steps = [];
    for (let i = 30; i < 60; i++) {
      const step = start.onAnswer(i % 4 !== 3, i, 400);
      steps.push(step);
      if ('exit' in step) break;
    }
    const end = steps.at(-1)!;
    expect(end).toHaveProperty('exit', true);
    // Ended within a handful of 429s, not a whole window of them.
    expect(steps.length).toBeLessThanOrEqual(8);
    const limit = (end as { limit: number }).limit;
    expect(limit).toBeGreaterThanOrEqual(50);
    expect(limit).toBeLessThanOrEqual(150);
  });

  it('ends on a window refusing more than 30 %, even with no clean answers before', () => {
    const start = new SlowStart();
    let end;
    for (let i = 0; i < 40 && !end; i++) {
      const step = start.onAnswer(i % 2 === 0, i, 200);
      if ('exit' in step) end = step;
    }
    expect(end?.exit).toBe(true);
    expect(end?.limit).toBeCloseTo(100, -1);
  });

  it('counts the answers by when their requests went: answers to requests sent before the first 429 are not the limit', () => {
    const start = new SlowStart();
    for (let i = 0; i < 40; i++) start.onAnswer(false, i, 400);
    start.onAnswer(true, 100, 400);
    // Late answers to requests sent earlier, all accepted: they say nothing of the empty bucket.
    for (let i = 0; i < 5; i++) expect(start.onAnswer(false, 90 + i, 400)).not.toHaveProperty('exit');
    let end;
    for (let i = 0; i < 10 && !end; i++) {
      const step = start.onAnswer(true, 101 + i, 400);
      if ('exit' in step) end = step;
    }
    expect(end?.exit).toBe(true);
    expect(end?.limit).toBeLessThan(100);
  });
});

describe('binomialTail', () => {
  it('is P(X ≥ k) of a binomial', () => {
    expect(binomialTail(0, 5, 0.3)).toBe(1);
    expect(binomialTail(6, 5, 0.3)).toBe(0);
    expect(binomialTail(1, 1, 0.25)).toBeCloseTo(0.25, 12);
    expect(binomialTail(2, 3, 0.5)).toBeCloseTo(0.5, 12);
    expect(binomialTail(4, 4, 0.1)).toBeCloseTo(1e-4, 12);
  });
});

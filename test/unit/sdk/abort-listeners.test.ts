import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../../src/sdk/abort-listeners.js';
import { sleep } from '../../../src/sdk/http-retry.js';
import { isFerryError } from '../../../src/sdk/errors.js';

describe('onAbort', () => {
  it('calls every listener still on when the signal fires, in the order they were added, once', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('a'));
    const offB = onAbort(controller.signal, () => calls.push('b'));
    onAbort(controller.signal, () => calls.push('c'));
    offB();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(['a', 'c']);
  });

  it('puts one listener on the signal however many waits listen', () => {
    const controller = new AbortController();
    const offs = Array.from({ length: 1000 }, () => onAbort(controller.signal, () => undefined));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const off of offs) off();
    // A signal whose waits all ended keeps its one listener, not one per wait it ever had.
    onAbort(controller.signal, () => undefined);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  });

  it('calls a listener added to a signal that already fired at once', () => {
    const controller = new AbortController();
    controller.abort();
    let called = 0;
    const off = onAbort(controller.signal, () => called++);
    expect(called).toBe(1);
    off();
    expect(called).toBe(1);
  });

  it('skips a listener that an earlier one took off while the signal fires', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    let offLater = (): void => undefined;
    onAbort(controller.signal, () => {
      calls.push('first');
      offLater();
    });
    offLater = onAbort(controller.signal, () => calls.push('later'));
    controller.abort();
    expect(calls).toEqual(['first']);
  });

  it('keeps the listeners of different signals apart', () => {
    const one = new AbortController();
    const two = new AbortController();
    const calls: string[] = [];
    onAbort(one.signal, () => calls.push('one'));
    onAbort(two.signal, () => calls.push('two'));
    two.abort();
    expect(calls).toEqual(['two']);
  });
});

describe('sleep on a shared signal', () => {
  it('puts one listener on the signal for all its waits (EventTarget walks its list on every add and remove)', async () => {
    const controller = new AbortController();
    const waits = Array.from({ length: 100 }, () => sleep(60_000, controller.signal).catch(() => 'aborted'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(await Promise.all(waits)).toEqual(Array.from({ length: 100 }, () => 'aborted'));
  });

  it('many sleeps end by their timers, and an abort rejects at once the ones still waiting', async () => {
    const controller = new AbortController();
    await Promise.all(Array.from({ length: 200 }, () => sleep(1, controller.signal)));
    const pending = Array.from({ length: 50 }, () => sleep(60_000, controller.signal, 'a long wait'));
    controller.abort(new Error('run stopped'));
    const outcomes = await Promise.allSettled(pending);
    expect(outcomes.every((o) => o.status === 'rejected' && isFerryError(o.reason, 'FERRY_ABORTED'))).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

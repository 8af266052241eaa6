import { describe, expect, it, vi } from 'vitest';
import { abortedError, type Clock } from '../../../../src/sdk/index.js';
import { CircuitBreaker } from '../../../../src/sdk/transport/breaker.js';
import { RequestControl } from '../../../../src/sdk/transport/control/request-control.js';
import { ServiceHealth } from '../../../../src/sdk/transport/service-health.js';
import type { ServiceHealthOptions } from '../../../../src/sdk/transport/service-health.js';
import { HttpTransport } from '../../../../src/sdk/transport/transport.js';
import type { WireAnswer } from '../../../../src/sdk/transport/wire.js';

/** Sleeping moves time on at once (one request at a time in these tests). */
class SteppingClock implements Clock {
  time = 1_000_000;
  readonly sleeps: number[] = [];
  now = (): number => this.time;
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw abortedError(signal, 'wait');
    this.sleeps.push(ms);
    this.time += ms;
    await Promise.resolve();
    if (signal?.aborted) throw abortedError(signal, 'wait');
  };
}

type Scripted = WireAnswer | Error;
const answer = (status: number, headers: Record<string, string> = {}): WireAnswer => ({ status, headers, body: '{}' });
const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** A transport on a scripted wire (then 200s), one request control and the health view, all on one virtual clock. */
function setup(script: Scripted[], policy: ServiceHealthOptions['policy'], extra: Partial<ServiceHealthOptions> = {}) {
  const clock = new SteppingClock();
  const control = new RequestControl({ concurrency: 4, clock });
  const enter = vi.spyOn(control, 'enter');
  const sent: number[] = [];
  const inFlightWhileWaiting: number[] = [];
  const transport = new HttpTransport({
    origins: 'http://127.0.0.1:9',
    breaker: new CircuitBreaker({ clock }),
    now: clock.now,
    wallClock: clock.now,
    control,
    wire: async () => {
      sent.push(clock.now());
      const next = script.shift() ?? answer(200);
      if (next instanceof Error) throw next;
      return next;
    },
  });
  const health = new ServiceHealth({
    policy: { baseDelayMs: 100, maxDelayMs: 1000, minDelayMs: 10, ...policy },
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    ...extra,
    hooks: { onRetryWait: () => inFlightWhileWaiting.push(control.stats().inFlight), ...extra.hooks },
  });
  const push = (options: { hold?: AbortSignal } = {}) => transport.attempt({ method: 'POST', url: '/v1/rows', headers: {} }, { retry: health, label: 'createRow', ...options });
  return { clock, control, enter, sent, inFlightWhileWaiting, transport, push };
}

describe('the transport retrying under a ServiceHealth (the pusher\'s requests)', () => {
  it('retries transient answers, honours Retry-After, and admits every attempt through the control once, holding no slot while it waits', async () => {
    const { push, clock, enter, sent, inFlightWhileWaiting } = setup([answer(503), answer(429, { 'retry-after': '7' }), answer(500)], { maxAttempts: 5 });
    const done = await push();
    expect(done).toMatchObject({ status: 200, attempts: 4 });
    expect(enter).toHaveBeenCalledTimes(4);
    expect(sent).toHaveLength(4);
    expect(clock.sleeps).toContain(7000);
    expect(inFlightWhileWaiting).toEqual([0, 0, 0]);
  });

  it('maxAttempts 1 is one attempt: the transient answer comes back as it is', async () => {
    const { push, sent } = setup([answer(503)], { maxAttempts: 1 });
    await expect(push()).resolves.toMatchObject({ status: 503, attempts: 1 });
    expect(sent).toHaveLength(1);
  });

  it('does not retry a refusal', async () => {
    const { push, sent } = setup([answer(400)], { maxAttempts: 5 });
    await expect(push()).resolves.toMatchObject({ status: 400, attempts: 1 });
    expect(sent).toHaveLength(1);
  });

  it('gives up on no answer after maxAttempts, with the attempts in the error', async () => {
    const { push, sent } = setup([refused(), refused(), refused()], { maxAttempts: 3 });
    await expect(push()).rejects.toMatchObject({ code: 'FERRY_SOURCE_UNREACHABLE', details: { attempts: 3 } });
    expect(sent).toHaveLength(3);
  });

  it('a 429 counts as a failed attempt only while nothing else succeeds', async () => {
    // Alone, nothing else succeeds: three 429s spend three attempts.
    const alone = setup([answer(429), answer(429), answer(429)], { maxAttempts: 3 });
    await expect(alone.push()).resolves.toMatchObject({ status: 429, attempts: 3 });
  });

  it('rides out an outage for the outage budget past maxAttempts, then gives up', async () => {
    const script = Array.from({ length: 500 }, () => answer(500));
    const { push, clock } = setup(script, { maxAttempts: 2, outageBudgetMs: 20_000 });
    const start = clock.now();
    const last = await push();
    expect(last.status).toBe(500);
    expect(last.attempts).toBeGreaterThan(2);
    expect(clock.now() - start).toBeGreaterThanOrEqual(20_000);
  });

  it('warns of an outage it rides out', async () => {
    const warn = vi.fn();
    const script = Array.from({ length: 500 }, () => answer(503));
    const { push } = setup(script, { maxAttempts: 2, outageBudgetMs: 60_000 }, { logger: { warn } });
    await push();
    expect(warn).toHaveBeenCalled();
    expect(warn.mock.calls[0]![0]).toMatchObject({ lastStatus: 503 });
  });

  it('the hold signal cuts a wait to retry with FERRY_ABORTED', async () => {
    const hold = new AbortController();
    const { push, sent } = setup([answer(503)], { maxAttempts: 5 }, { hooks: { onRetryWait: () => hold.abort() } });
    await expect(push({ hold: hold.signal })).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    expect(sent).toHaveLength(1);
  });
});

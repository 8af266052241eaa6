import { describe, it, expect, vi } from 'vitest';
import { Pusher } from '../../../src/sink/pusher.js';
import type { PusherOptions, PushJob } from '../../../src/sink/pusher.js';
import { FerryError } from '../../../src/sdk/errors.js';
import { ServiceHealth } from '../../../src/sdk/transport/service-health.js';
import { FakeClock, FakeService, TimerClock, FakeServiceError, NetworkError, recordingLogger, silentLogger, structuredError } from './fake-service.js';

const SOURCE = '6f1d3c0e-8a4b-4c3d-9e2f-0a1b2c3d4e5f';
const job = (i: number): PushJob => ({ kind: 'row', remoteId: `r${i}`, body: { id: `r${i}`, sourceId: SOURCE, name: `row ${i}` } });

function setup(overrides: Partial<PusherOptions> = {}) {
  const clock = new FakeClock();
  const service = new FakeService(clock);
  const pusher = new Pusher({
    service,
    concurrency: 4,
    maxRequestsPerSecond: 1000,
    maxAttempts: 5,
    logger: silentLogger,
    clock,
    random: () => 0.5,
    ...overrides,
  });
  return { clock, service, pusher };
}

const tooMany = (retryAfter?: string, retryAfterMs?: number) => new FakeServiceError(429, { detail: 'rate limit exceeded' }, retryAfter, retryAfterMs);

describe('Pusher', () => {
  it("pushes every record with the push's shared retry policy (the transport retries) and reports created/updated", async () => {
    const { service, pusher } = setup();
    service.handler = (_k, body, n) => ({ status: n % 2 ? 'created' : 'updated', recordId: `rec-${String(body.id)}`, id: String(body.id), sourceId: SOURCE });
    const outcomes = await Promise.all([1, 2].map((i) => pusher.push(job(i))));
    expect(outcomes).toEqual([
      { ok: true, recordId: 'rec-r1', status: 'created' },
      { ok: true, recordId: 'rec-r2', status: 'updated' },
    ]);
    expect(service.callsOf('create:row').every((c) => c.options?.retry instanceof ServiceHealth)).toBe(true);
  });

  it("passes a job's JSON text to the service as is, so the body is serialised once", async () => {
    const { service, pusher } = setup();
    await pusher.push({ ...job(1), json: '{"id":"r1"}' });
    await pusher.push(job(2));
    expect(service.callsOf('create:row').map((c) => c.options?.json)).toEqual(['{"id":"r1"}', undefined]);
  });

  it('routes each kind to its endpoint', async () => {
    const { service, pusher } = setup();
    for (const kind of ['conversation', 'message', 'row', 'document'] as const) {
      await pusher.push({ kind, remoteId: 'x', body: { id: 'x', sourceId: SOURCE } });
    }
    expect(service.calls.map((c) => c.method)).toEqual(['create:conversation', 'create:message', 'create:row', 'create:document']);
  });

  it('never has more requests in flight than the concurrency', async () => {
    const { service, pusher } = setup({ concurrency: 3 });
    await Promise.all(Array.from({ length: 40 }, (_, i) => pusher.push(job(i))));
    expect(service.pushes).toBe(40);
    expect(service.maxInFlight).toBe(3);
  });

  it('keeps requests under the rate ceiling (virtual clock)', async () => {
    const clock = new TimerClock();
    const service = new FakeService(clock);
    const pusher = new Pusher({ service, concurrency: 8, maxRequestsPerSecond: 5, maxAttempts: 5, logger: silentLogger, clock });
    const start = clock.now();
    await Promise.all(Array.from({ length: 20 }, (_, i) => pusher.push(job(i))));
    const times = service.callsOf('create:row').map((c) => c.at);
    expect(times).toHaveLength(20);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(200);
    // In any one-second window at most 5 requests (plus the one at its edge).
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(5);
    expect(times[19]! - start).toBeGreaterThanOrEqual(19 * 200);
  });

  it('a window of 429s lowers the shared rate once; successes climb back to the ceiling', async () => {
    const { service, pusher } = setup({ concurrency: 5, maxRequestsPerSecond: 100, rateWindow: { minWindowMs: 0, minWindowAnswers: 8 } });
    for (let i = 0; i < 4; i++) service.script.push(tooMany());
    const rates: number[] = [];
    service.handler = (_k, body) => {
      rates.push(pusher.stats().currentRate);
      return { status: 'created', recordId: 'x', id: String(body.id), sourceId: SOURCE };
    };
    await Promise.all([0, 1, 2, 3].map((i) => pusher.push(job(i))));
    const lowered = Math.min(...rates);
    expect(lowered).toBeLessThan(100);
    expect(lowered).toBeGreaterThanOrEqual(25); // one decrease for the four 429s, not four
    for (let i = 4; i <= 400; i++) await pusher.push(job(i));
    expect(pusher.stats().currentRate).toBe(100);
    expect(Math.max(...rates)).toBeLessThanOrEqual(100);
    // Additive: it rose in steps, not in one jump.
    expect(new Set(rates).size).toBeGreaterThan(3);
    expect(pusher.stats()).toMatchObject({ throttled: 4, retries: 4, succeeded: 401 });
  });

  it('never cuts below the floor, however many 429s', async () => {
    const { service, pusher } = setup({ concurrency: 1, maxRequestsPerSecond: 4, maxAttempts: 20 });
    for (let i = 0; i < 15; i++) service.script.push(tooMany());
    await pusher.push(job(0));
    expect(pusher.stats().currentRate).toBe(0.5);
  });

  it('honours Retry-After in seconds: every request waits until then', async () => {
    const { service, pusher, clock } = setup({ concurrency: 1 });
    service.script.push(tooMany('7'));
    await pusher.push(job(0));
    expect(clock.sleeps).toContain(7000);
    const [first, second] = service.callsOf('create:row').map((c) => c.at);
    expect(second! - first!).toBeGreaterThanOrEqual(7000);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const { service, pusher, clock } = setup({ concurrency: 1 });
    service.script.push(tooMany(new Date(clock.now() + 12_000).toUTCString()));
    await pusher.push(job(0));
    expect(clock.sleeps).toContain(12_000);
  });

  it('honours a Retry-After the client already parsed (retryAfterMs)', async () => {
    const { service, pusher, clock } = setup({ concurrency: 2 });
    service.script.push(tooMany(undefined, 3500));
    await Promise.all([0, 1, 2, 3].map((i) => pusher.push(job(i))));
    expect(clock.sleeps).toContain(3500);
    const times = service.callsOf('create:row').map((c) => c.at);
    expect(times).toHaveLength(5);
    // The first two were already on their way; after the 429 nothing went out before the hint expired.
    for (const t of times.slice(2)) expect(t).toBeGreaterThanOrEqual(times[0]! + 3500);
  });

  it('a Retry-After of 0 or none means backoff with jitter, never a tight loop', async () => {
    for (const hint of ['0', undefined]) {
      const { service, pusher, clock } = setup({ concurrency: 1, random: () => 0, minDelayMs: 50, baseDelayMs: 100 });
      service.script.push(tooMany(hint), tooMany(hint), tooMany(hint));
      await pusher.push(job(0));
      const times = service.callsOf('create:row').map((c) => c.at);
      expect(times).toHaveLength(4);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(50);
      expect(clock.sleeps.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('backs off exponentially with full jitter on 5xx', async () => {
    const { service, pusher, clock } = setup({ concurrency: 1, random: () => 0.999, baseDelayMs: 100, maxDelayMs: 1000 });
    service.script.push(new FakeServiceError(503), new FakeServiceError(500), new FakeServiceError(502), new FakeServiceError(504), new FakeServiceError(503));
    await expect(pusher.push(job(0))).rejects.toMatchObject({ code: 'FERRY_SERVICE_ERROR' });
    // Windows 100, 200, 400, 800 (capped at 1000), jitter just under each.
    expect(clock.sleeps).toEqual([99, 199, 399, 799]);
  });

  it('retries 408 and 409 and network errors', async () => {
    const { service, pusher } = setup({ concurrency: 1 });
    service.script.push(new FakeServiceError(408), structuredError(409, 'conflict', 'concurrent write'), new NetworkError('socket hang up'));
    await expect(pusher.push(job(0))).resolves.toMatchObject({ ok: true });
    expect(pusher.stats()).toMatchObject({ requests: 4, retries: 3, throttled: 0 });
  });

  it('a permanent refusal becomes a dead-letter outcome with the service body, without retry', async () => {
    const { service, pusher } = setup();
    const error = structuredError(400, 'validation_error', 'fields.amount: value "x" does not match fieldType double', 'fields.amount', 'req-42');
    service.script.push(error);
    const outcome = await pusher.push(job(0));
    expect(outcome).toEqual({
      ok: false,
      permanent: true,
      status: 400,
      reason: '400 validation_error: fields.amount: value "x" does not match fieldType double (field fields.amount, request req-42)',
      errorBody: error.body,
    });
    expect(service.pushes).toBe(1);
    expect(pusher.stats()).toMatchObject({ rejected: 1, retries: 0 });
  });

  it.each([404, 411, 413, 422])('%i is permanent too', async (status) => {
    const { service, pusher } = setup();
    service.script.push(new FakeServiceError(status, { detail: `nope ${status}` }));
    await expect(pusher.push(job(0))).resolves.toMatchObject({ ok: false, status, reason: `${status}: nope ${status}` });
    expect(service.pushes).toBe(1);
  });

  it('a body the client refused to send (over 10 MB) is dead-lettered with status null', async () => {
    const { service, pusher } = setup();
    service.script.push(new FerryError('FERRY_BODY_TOO_LARGE', 'createRow: request body is 11000000 bytes'));
    await expect(pusher.push(job(0))).resolves.toMatchObject({ ok: false, status: null, reason: 'createRow: request body is 11000000 bytes' });
  });

  it('401 is fatal to the run: this push and every later one reject, with no more requests', async () => {
    const { service, pusher } = setup({ concurrency: 1 });
    service.script.push(new FakeServiceError(401, { detail: 'invalid key' }));
    const error = await pusher.push(job(0)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FerryError);
    expect((error as FerryError).code).toBe('FERRY_SERVICE_AUTH');
    expect((error as FerryError).exitCode).toBe(3);
    await expect(pusher.push(job(1))).rejects.toMatchObject({ code: 'FERRY_SERVICE_AUTH' });
    expect(service.pushes).toBe(1);
  });

  it('403 is fatal with a scope hint', async () => {
    const { service, pusher } = setup();
    service.script.push(new FakeServiceError(403, { detail: 'API key missing required scope: ingest' }));
    await expect(pusher.push(job(0))).rejects.toMatchObject({ code: 'FERRY_SERVICE_AUTH', hint: expect.stringMatching(/scope/) });
  });

  it('transient failures that exhaust the attempts are fatal: SERVICE_ERROR for statuses, UNREACHABLE for the network', async () => {
    const a = setup({ maxAttempts: 3 });
    a.service.script.push(tooMany(), tooMany(), tooMany());
    await expect(a.pusher.push(job(0))).rejects.toMatchObject({ code: 'FERRY_SERVICE_ERROR', message: expect.stringContaining('HTTP 429 after 3 attempts') });
    expect(a.service.pushes).toBe(3);

    const b = setup({ maxAttempts: 2 });
    b.service.script.push(new FerryError('FERRY_SERVICE_UNREACHABLE', 'connect ECONNREFUSED'), new NetworkError('reset'));
    await expect(b.pusher.push(job(0))).rejects.toMatchObject({ code: 'FERRY_SERVICE_UNREACHABLE' });
    expect(b.service.pushes).toBe(2);
  });

  it('while the service serves others, retries a record as long as its failures are ones the service\'s random share of them would produce', async () => {
    // A service failing a fifth of requests with 500 at random: a streak of five is one in 3,125 records, so five
    // failures of one record prove nothing about the record; at maxAttempts 3 the run used to stop on it.
    const { service, pusher } = setup({ maxAttempts: 3, concurrency: 8 });
    let draw = 0;
    const unlucky = new Map<string, number>([['r7', 5]]);
    service.handler = (_kind, body) => {
      const id = String(body.id);
      const left = unlucky.get(id) ?? 0;
      if (left > 0) unlucky.set(id, left - 1);
      if (left > 0 || (id !== 'r7' && ++draw % 5 === 0)) throw new FakeServiceError(500, { detail: 'internal error' });
      return { status: 'created', recordId: `rec-${id}`, id, sourceId: SOURCE };
    };
    const outcomes = await Promise.all(Array.from({ length: 400 }, (_, i) => pusher.push(job(i))));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(service.callsOf('create:row').filter((c) => (c.args[0] as { id: string }).id === 'r7')).toHaveLength(6);
  });

  it('a record the service fails on every time, while it serves the others, still gives up after about maxAttempts', async () => {
    const { service, pusher } = setup({ maxAttempts: 3, concurrency: 8 });
    service.handler = (_kind, body) => {
      const id = String(body.id);
      if (id === 'r399') throw new FakeServiceError(500, { detail: 'internal error' });
      return { status: 'created', recordId: `rec-${id}`, id, sourceId: SOURCE };
    };
    await Promise.all(Array.from({ length: 399 }, (_, i) => pusher.push(job(i))));
    await expect(pusher.push(job(399))).rejects.toMatchObject({ code: 'FERRY_SERVICE_ERROR' });
    // The service failed almost nothing else: the streak it allows is short (1 % failures would allow 5).
    expect(service.callsOf('create:row').filter((c) => (c.args[0] as { id: string }).id === 'r399').length).toBeLessThanOrEqual(5);
  });

  it('every attempt is admitted by the request control once; a record waiting to retry holds no request slot', async () => {
    const clock = new TimerClock();
    const service = new FakeService(clock);
    const pusher = new Pusher({ service, concurrency: 1, maxAttempts: 5, logger: silentLogger, clock, random: () => 0.5, baseDelayMs: 400 });
    const enter = vi.spyOn(pusher.control, 'enter');
    service.script.push(new FakeServiceError(503), new FakeServiceError(500));
    await Promise.all([0, 1, 2].map((i) => pusher.push(job(i))));
    const order = service.callsOf('create:row').map((c) => (c.args[0] as { id: string }).id);
    expect(order).toHaveLength(5);
    expect(enter).toHaveBeenCalledTimes(5);
    // With one slot, r1 and r2 went while the records refused waited for their retries.
    expect(order.indexOf('r2')).toBeLessThan(order.lastIndexOf('r0'));
    expect(order.indexOf('r2')).toBeLessThan(order.lastIndexOf('r1'));
    expect(pusher.stats()).toMatchObject({ requests: 5, retries: 2, succeeded: 3, waitingToRetry: 0 });
  });

  it('an unexpected error is rethrown as it is', async () => {
    const { service, pusher } = setup();
    const bug = new TypeError('boom');
    service.script.push(bug);
    await expect(pusher.push(job(0))).rejects.toBe(bug);
  });

  it('bounds the queue: a reader awaiting waitForCapacity never gets far ahead', async () => {
    const { service, pusher } = setup({ concurrency: 2, maxQueued: 8 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    service.handler = async (_k, body) => {
      await gate;
      return { status: 'created', recordId: 'x', id: String(body.id), sourceId: SOURCE };
    };
    let produced = 0;
    const pending: Promise<unknown>[] = [];
    const reader = (async () => {
      for (let i = 0; i < 100; i++) {
        await pusher.waitForCapacity();
        pending.push(pusher.push(job(i)));
        produced++;
      }
    })();
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    expect(produced).toBeLessThanOrEqual(8 + 2 + 1);
    expect(pusher.stats().queued).toBeLessThanOrEqual(8);
    release();
    await reader;
    await Promise.all(pending);
    expect(produced).toBe(100);
  });

  it('a reader waiting for capacity goes on once the queue has drained to half, not at every freed slot; an abort rejects the wait', async () => {
    const controller = new AbortController();
    const { service, pusher } = setup({ concurrency: 2, maxQueued: 8, signal: controller.signal });
    const answers: (() => void)[] = [];
    service.handler = (_k, body) =>
      new Promise((resolve) => answers.push(() => resolve({ status: 'created', recordId: 'x', id: String(body.id), sourceId: SOURCE })));
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    const pushes = Array.from({ length: 10 }, (_, i) => pusher.push(job(i)));
    await settle();
    expect(pusher.stats()).toMatchObject({ inFlight: 2, queued: 8 });
    let roomAfter: number | undefined;
    void pusher.waitForCapacity()!.then(() => (roomAfter = pusher.stats().queued));
    for (let answered = 1; answered <= 4; answered++) {
      answers.shift()!();
      await settle();
      // Each answer frees a slot for one queued record; the reader waits until half the queue is free.
      expect(roomAfter).toBe(answered < 4 ? undefined : 4);
    }
    // Full again: a wait that an abort ends.
    pushes.push(...Array.from({ length: 4 }, (_, i) => pusher.push(job(100 + i))));
    const wait = pusher.waitForCapacity();
    expect(wait).toBeInstanceOf(Promise);
    controller.abort();
    await expect(wait).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    for (const answer of answers) answer();
    await Promise.allSettled(pushes);
  });

  it('the signal aborts waits (a Retry-After pause) with FERRY_ABORTED', async () => {
    const controller = new AbortController();
    const clock = new FakeClock();
    const service = new FakeService(clock);
    const pusher = new Pusher({
      service, concurrency: 1, maxRequestsPerSecond: 10, maxAttempts: 5, logger: silentLogger, clock, signal: controller.signal,
      sleep: async (ms, signal) => {
        controller.abort();
        await clock.sleep(ms, signal);
      },
    });
    service.script.push(tooMany('30'));
    await expect(pusher.push(job(0))).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    await expect(pusher.push(job(1))).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
    expect(service.pushes).toBe(1);
  });

  it('deletes: deleted, 404 as already absent, other refusals as outcomes', async () => {
    const { service, pusher } = setup();
    await expect(pusher.delete({ kind: 'message', remoteId: 'm1', sourceId: SOURCE })).resolves.toMatchObject({ ok: true, status: 'deleted' });
    service.script.push(structuredError(404, 'not_found', 'no record'));
    await expect(pusher.delete({ kind: 'row', remoteId: 'r1', sourceId: SOURCE })).resolves.toEqual({ ok: true, status: 'absent' });
    service.script.push(structuredError(400, 'validation_error', 'bad source', 'sourceId'));
    await expect(pusher.delete({ kind: 'document', remoteId: 'd1', sourceId: SOURCE })).resolves.toMatchObject({ ok: false, status: 400 });
    expect(service.calls.map((c) => [c.method, c.args[0], c.options?.retry instanceof ServiceHealth])).toEqual([
      ['delete:message', { remoteId: 'm1', sourceId: SOURCE }, true],
      ['delete:row', { remoteId: 'r1', sourceId: SOURCE }, true],
      ['delete:document', { remoteId: 'd1', sourceId: SOURCE }, true],
    ]);
  });

  it('logs each change of the rate at debug level', async () => {
    const { lines, logger } = recordingLogger();
    const { service, pusher } = setup({ logger, concurrency: 1, maxRequestsPerSecond: 8 });
    for (let i = 0; i < 4; i++) service.script.push(tooMany('1'));
    await pusher.push(job(0));
    expect(lines.find((l) => l.msg === 'push rate changed')?.obj).toMatchObject({ change: 'decrease', retryAfterMs: 1000 });
  });
});

describe('Pusher without bounds (adaptive concurrency and rate)', () => {
  /** A service on the virtual clock answering after `ms`, `servers` at a time (the rest wait in line). */
  function queueingService(clock: TimerClock, ms: number, servers = Number.POSITIVE_INFINITY) {
    const service = new FakeService(clock);
    let busy = 0;
    const line: (() => void)[] = [];
    service.handler = async (_k, body) => {
      if (busy >= servers) await new Promise<void>((resolve) => line.push(resolve));
      busy++;
      await clock.sleep(ms);
      busy--;
      line.shift()?.();
      return { status: 'created', recordId: `rec-${String(body.id)}`, id: String(body.id), sourceId: SOURCE };
    };
    return service;
  }

  it('keeps a few more in flight than a service that serves 8 at a time, not a crowd waiting in its queue', async () => {
    const clock = new TimerClock();
    const service = queueingService(clock, 20, 8);
    const pusher = new Pusher({ service, maxAttempts: 5, logger: silentLogger, clock });
    const start = clock.now();
    await Promise.all(Array.from({ length: 3000 }, (_, i) => pusher.push(job(i))));
    const stats = pusher.stats();
    // 8 served per 20 ms is 400/s: the run takes about 7.5 s of virtual time.
    expect((3000 * 1000) / (clock.now() - start)).toBeGreaterThan(0.9 * 400);
    expect(stats.concurrencyReason).toBe('latency');
    expect(stats.concurrency).toBeLessThanOrEqual(4 * 8);
    expect(stats.concurrency).toBeGreaterThanOrEqual(8);
    expect(stats.rateReason).toBe('unlimited');
  });

  it('grows past its start against a slow service that never queues, up to a configured bound', async () => {
    const clock = new TimerClock();
    const service = queueingService(clock, 200);
    const pusher = new Pusher({ service, maxAttempts: 5, logger: silentLogger, clock, concurrency: 100 });
    await Promise.all(Array.from({ length: 3000 }, (_, i) => pusher.push(job(i))));
    expect(service.maxInFlight).toBe(100);
    expect(pusher.stats().concurrencyReason).toBe('bound');
  });

  it('starts near what an earlier run learnt', () => {
    const clock = new TimerClock();
    const pusher = new Pusher({ service: new FakeService(clock), maxAttempts: 5, logger: silentLogger, clock, learnt: { concurrency: 120, rate: 300 } });
    expect(pusher.stats().concurrency).toBe(90);
    expect(pusher.stats().currentRate).toBe(270);
  });
});

import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit, INITIAL_CONCURRENCY } from '../../../../../src/sdk/transport/control/concurrency-limit.js';

/**
 * A discrete-event simulation on a virtual clock: a client that keeps as many
 * requests in flight as the limit allows (and, when given, no more than
 * `needs`), against a service that answers after `ms` with `servers` requests
 * served at a time (the rest wait in line), or refuses with `refuse`.
 */
interface Service {
  ms: number;
  servers?: number;
  /** Answers a status other than 201 for the request sent at `at`, if it likes. */
  refuse?: (at: number) => number | undefined;
}

function simulate(service: Service, options: { seconds: number; max?: number; initial?: number; needs?: number }) {
  const limit = new ConcurrencyLimit({ max: options.max ?? 256, ...(options.initial ? { initial: options.initial } : {}) }, 0);
  const events: { at: number; run: () => void }[] = [];
  const schedule = (at: number, run: () => void) => {
    let i = events.length;
    while (i > 0 && events[i - 1]!.at > at) i--;
    events.splice(i, 0, { at, run });
  };
  let now = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let served = 0;
  let answered = 0;
  let busy = 0;
  const line: (() => void)[] = [];
  const history: number[] = [];
  const send = () => {
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    const sentAt = now;
    const seen = inFlight;
    const answer = (status: number) => {
      inFlight--;
      answered++;
      if (status === 201) served++;
      limit.onAnswer({ status, roundTripMs: now - sentAt, inFlight: seen }, now);
      fill();
    };
    const refused = service.refuse?.(now);
    if (refused !== undefined) return schedule(now + 1, () => answer(refused));
    const serve = () => {
      busy++;
      schedule(now + service.ms, () => {
        busy--;
        line.shift()?.();
        answer(201);
      });
    };
    if (service.servers === undefined || busy < service.servers) serve();
    else line.push(serve);
  };
  const fill = () => {
    while (inFlight < Math.min(limit.limit, options.needs ?? Number.POSITIVE_INFINITY)) send();
  };
  fill();
  let nextSample = 0;
  while (events.length > 0 && now < options.seconds * 1000) {
    const event = events.shift()!;
    now = event.at;
    event.run();
    if (now >= nextSample) {
      history.push(limit.limit);
      nextSample += 100;
    }
  }
  return { limit, served, answered, peakInFlight, rate: (served * 1000) / now, history };
}

describe('ConcurrencyLimit', () => {
  it('settles a little above a service that serves 16 at a time and queues the rest: full throughput, few waiting', () => {
    const { limit, rate, history } = simulate({ ms: 20, servers: 16 }, { seconds: 10 });
    expect(rate).toBeGreaterThan(0.95 * 800);
    // After the first second: in flight between the capacity and four times it.
    const settled = history.slice(10);
    expect(Math.min(...settled)).toBeGreaterThanOrEqual(16);
    expect(Math.max(...settled)).toBeLessThanOrEqual(64);
    expect(limit.reason).toBe('latency');
  });

  it('grows to what a slow service without a parallel limit needs, within a few round trips', () => {
    // 300 ms at 90 in flight is 300/s: reached in under two seconds from the start.
    const { limit, history } = simulate({ ms: 300 }, { seconds: 3, needs: 90 });
    expect(history[20]).toBeGreaterThanOrEqual(90);
    expect(limit.reason).toBe('client');
  });

  it('reaches the cap against a service that never queues, and says the bound is why', () => {
    const { limit } = simulate({ ms: 200 }, { seconds: 5, max: 64 });
    expect(limit.limit).toBe(64);
    expect(limit.reason).toBe('bound');
  });

  it('does not grow past what the client sends: the source sets the pace', () => {
    const { limit } = simulate({ ms: 20 }, { seconds: 5, needs: 4 });
    expect(limit.limit).toBe(INITIAL_CONCURRENCY);
    expect(limit.reason).toBe('client');
  });

  it('comes down to what the rate needs once answers turn to 429, and says so', () => {
    // A bucket of 100/s at 200 ms needs 20 in flight; the rest is refused at once.
    let tokens = 10;
    let refilledAt = 0;
    const refuse = (at: number) => {
      tokens = Math.min(10, tokens + ((at - refilledAt) * 100) / 1000);
      refilledAt = at;
      if (tokens >= 1) {
        tokens -= 1;
        return undefined;
      }
      return 429;
    };
    const { limit } = simulate({ ms: 200, refuse }, { seconds: 5 });
    expect(limit.reason).toBe('throttled');
    expect(limit.limit).toBeLessThan(100);
  });

  it('cuts by a tenth per round of 503s (the service says it is overloaded)', () => {
    const limit = new ConcurrencyLimit({ max: 256, initial: 100 }, 0);
    let now = 0;
    for (let i = 0; i < 50; i++) limit.onAnswer({ status: 201, roundTripMs: 20, inFlight: 100 }, (now += 0.5));
    const before = limit.limit;
    limit.onAnswer({ status: 503, roundTripMs: 1, inFlight: 100 }, (now += 1));
    expect(limit.limit).toBeLessThanOrEqual(Math.ceil(before * 0.9));
    expect(limit.reason).toBe('overloaded');
    expect(limit.inSlowStart).toBe(false);
  });

  it('takes a network error as no measure of capacity', () => {
    const limit = new ConcurrencyLimit({ max: 256 }, 0);
    for (let i = 0; i < 40; i++) limit.onAnswer({ status: null, roundTripMs: 5000, inFlight: 16 }, i);
    expect(limit.limit).toBe(INITIAL_CONCURRENCY);
    expect(limit.noLoadRoundTripMs).toBeUndefined();
  });

  it('holds a configured bound below the cap', () => {
    const limit = new ConcurrencyLimit({ max: 8 }, 0);
    expect(limit.limit).toBe(8);
    expect(limit.reason).toBe('bound');
  });
});

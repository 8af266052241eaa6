import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, backoffDelay, classifyFailure, classifyStatus, isRetryableStatus, networkErrorCode, nextRetry, parseRetryAfter, retryDelay, sleep } from '../../../src/sdk/http-retry.js';
import { isFerryError } from '../../../src/sdk/errors.js';

const policy = { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 30_000 };

describe('retryable statuses', () => {
  it('retries 408, 409, 429 and 5xx only', () => {
    for (const s of [408, 409, 429, 500, 502, 503, 504]) expect(isRetryableStatus(s), String(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 411, 413, 422]) expect(isRetryableStatus(s), String(s)).toBe(false);
  });
});

describe('network errors', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });
  it('recognises socket failures, also when wrapped in cause', () => {
    expect(networkErrorCode(withCode('ECONNRESET'))).toBe('ECONNRESET');
    expect(networkErrorCode(withCode('UND_ERR_SOCKET'))).toBe('UND_ERR_SOCKET');
    expect(networkErrorCode(new Error('fetch failed', { cause: withCode('ECONNREFUSED') }))).toBe('ECONNREFUSED');
  });
  it('leaves other errors alone', () => {
    expect(networkErrorCode(withCode('UND_ERR_INVALID_ARG'))).toBeUndefined();
    expect(networkErrorCode(new TypeError('x'))).toBeUndefined();
    expect(networkErrorCode('ECONNRESET')).toBeUndefined();
  });
});

describe('backoff', () => {
  it('doubles the jitter window per attempt up to maxDelayMs', () => {
    const top = () => 0.999999;
    expect(backoffDelay(1, policy, top)).toBe(249);
    expect(backoffDelay(2, policy, top)).toBe(499);
    expect(backoffDelay(5, policy, top)).toBe(3999);
    expect(backoffDelay(20, policy, top)).toBe(29_999);
  });
  it('spreads waits over the whole window (full jitter)', () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(500);
  });
  it('prefers Retry-After but caps it', () => {
    expect(retryDelay(1, policy, 2000)).toBe(2000);
    expect(retryDelay(1, policy, 3_600_000)).toBe(30_000);
    expect(retryDelay(2, policy, undefined, () => 0.5)).toBe(250);
  });
  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY).toEqual({ maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 30_000, minDelayMs: 50, maxRetryAfterMs: 300_000, outageBudgetMs: 0 });
  });
  it('honours Retry-After up to maxRetryAfterMs, and never backs off below minDelayMs', () => {
    expect(retryDelay(1, DEFAULT_RETRY, 120_000)).toBe(120_000);
    expect(retryDelay(1, DEFAULT_RETRY, 3_600_000)).toBe(300_000);
    expect(backoffDelay(1, DEFAULT_RETRY, () => 0)).toBe(50);
  });
});

describe('one classification for every caller', () => {
  it('reads statuses: auth, permanent, transient (409 included), and anything else is fatal', () => {
    expect(classifyStatus(401)).toEqual({ kind: 'auth', status: 401 });
    expect(classifyStatus(422)).toEqual({ kind: 'permanent', status: 422 });
    expect(classifyStatus(409)).toEqual({ kind: 'transient', status: 409, retryAfterMs: undefined });
    expect(classifyStatus(429, 1000)).toEqual({ kind: 'transient', status: 429, retryAfterMs: 1000 });
    expect(classifyStatus(302)).toEqual({ kind: 'fatal' });
  });
  it('reads thrown errors: a status on the error, network codes, ferry\'s own verdicts, else fatal', () => {
    expect(classifyFailure({ status: 503, retryAfterMs: 2000 })).toEqual({ kind: 'transient', status: 503, retryAfterMs: 2000 });
    expect(classifyFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toEqual({ kind: 'transient', status: null, retryAfterMs: undefined });
    expect(classifyFailure(new TypeError('bug'))).toEqual({ kind: 'fatal' });
  });
});

describe('nextRetry: attempts, and riding out an outage', () => {
  const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 10_000, outageBudgetMs: 60_000 };
  const half = () => 0.5;
  it('retries until maxAttempts failures when the failure is the request\'s own', () => {
    expect(nextRetry(undefined, { failures: 2 }, policy, half)).toEqual({ retry: true, delayMs: 100 });
    expect(nextRetry(undefined, { failures: 3 }, policy, half)).toEqual({ retry: false });
  });
  it('keeps retrying past maxAttempts while the whole service is down for less than the budget', () => {
    expect(nextRetry(undefined, { failures: 9, outageMs: 59_000 }, policy, half)).toEqual({ retry: true, delayMs: 500 });
    expect(nextRetry(undefined, { failures: 9, outageMs: 60_000 }, policy, half)).toEqual({ retry: false });
    expect(nextRetry(undefined, { failures: 3, outageMs: 10 }, { ...policy, outageBudgetMs: 0 }, half)).toEqual({ retry: false });
    // Past the budget even a request on its first failure gives up (behind the breaker it waited, not failed).
    expect(nextRetry(undefined, { failures: 1, outageMs: 60_000 }, policy, half)).toEqual({ retry: false });
    expect(nextRetry(undefined, { failures: 1, outageMs: 10 }, { ...policy, outageBudgetMs: 0 }, half)).toEqual({ retry: true, delayMs: 50 });
  });
  it('waits for the server\'s Retry-After when it gave one', () => {
    expect(nextRetry(4000, { failures: 1 }, policy, half)).toEqual({ retry: true, delayMs: 4000 });
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2024-05-03T12:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter(['7', '9'], now)).toBe(7000);
  });
  it('reads an HTTP-date', () => {
    expect(parseRetryAfter('Fri, 03 May 2024 12:00:30 GMT', now)).toBe(30_000);
  });
  it('treats absent, zero, past and garbage as no hint', () => {
    for (const v of [undefined, '', '0', '0.0', 'Fri, 03 May 2024 11:59:00 GMT', 'soon', '-5']) {
      expect(parseRetryAfter(v, now), String(v)).toBeUndefined();
    }
  });
});

describe('sleep', () => {
  it('resolves after the wait', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });
  it('rejects with FERRY_ABORTED when the signal fires, or already fired', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal, 'createRow');
    controller.abort();
    const err: unknown = await pending.catch((e: unknown) => e);
    expect(isFerryError(err, 'FERRY_ABORTED')).toBe(true);
    await expect(sleep(10, controller.signal)).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, backoffDelay, isRetryableStatus, networkErrorCode, parseRetryAfter, retryDelay, sleep } from '../../../src/api/retry.js';
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
    expect(DEFAULT_RETRY).toEqual({ maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 30_000 });
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

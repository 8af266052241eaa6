/**
 * ferry's one retry policy: which failures are worth repeating, how long to
 * wait before the next attempt, and when to give up. The service client, the
 * sink's pusher and connectors calling HTTP APIs all decide through these
 * functions, so every client in ferry waits and gives up the same way
 * (docs/sink.md explains the reasoning).
 */
import { FerryError, isFerryError } from './errors.js';
import { onAbort } from './abort-listeners.js';
import { codeOf } from './guards.js';

/** How often and how long a client retries. */
export interface RetryPolicy {
  /** Attempts in total, the first one included. */
  maxAttempts: number;
  /** Cap of the first backoff window, in milliseconds. */
  baseDelayMs: number;
  /** No single backoff is longer than this, in milliseconds. */
  maxDelayMs: number;
  /** Shortest backoff, so that a jitter of 0 never turns into a tight loop. @default 0 */
  minDelayMs?: number;
  /** Longest Retry-After honoured; longer hints are capped to it. @default maxDelayMs */
  maxRetryAfterMs?: number;
  /**
   * Keep retrying past `maxAttempts` while the service has been failing for
   * less than this (an outage a scheduled run should ride out). @default 0
   */
  outageBudgetMs?: number;
}

/** The defaults of ferry's service client and sink: 6 attempts, windows from 250 ms to 30 s, Retry-After up to 5 min. */
export const DEFAULT_RETRY: Readonly<Required<RetryPolicy>> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  minDelayMs: 50,
  maxRetryAfterMs: 300_000,
  outageBudgetMs: 0,
});

/**
 * Statuses worth repeating unchanged: 408, 409 (a concurrent write of the same
 * record), 429 and 5xx. Every other 4xx will fail the same way again.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * What a failed call means, decided in this one place:
 * - `auth`: 401/403; every later request would fail too, so stop.
 * - `permanent`: refused for good (other 4xx, a body over the size limit); do not repeat.
 * - `transient`: network failure, 408, 409, 429, 5xx; repeat after a wait.
 * - `fatal`: anything else (an unexpected status, an abort, a bug); rethrow.
 */
export type FailureClass =
  | { kind: 'auth'; status: number }
  | { kind: 'permanent'; status: number | null }
  | { kind: 'transient'; status: number | null; retryAfterMs: number | undefined }
  | { kind: 'fatal' };

/** The class of a non-2xx HTTP status (see {@link FailureClass}). */
export function classifyStatus(status: number, retryAfterMs?: number): FailureClass {
  if (status === 401 || status === 403) return { kind: 'auth', status };
  if (isRetryableStatus(status)) return { kind: 'transient', status, retryAfterMs };
  if (status >= 400 && status < 500) return { kind: 'permanent', status };
  return { kind: 'fatal' };
}

/**
 * Classify a thrown error: one carrying an HTTP `status` (and a parsed
 * `retryAfterMs`, as ferry's `ServiceError` does), ferry's own verdicts for
 * failures without an answer, a socket failure, or else `fatal`.
 */
export function classifyFailure(error: unknown, now: number = Date.now()): FailureClass {
  const { status, retryAfterMs, retryAfter } = (typeof error === 'object' && error !== null ? error : {}) as {
    status?: unknown;
    retryAfterMs?: unknown;
    retryAfter?: unknown;
  };
  if (typeof status === 'number' && Number.isInteger(status)) {
    // The hint parsed already, or the raw header (delay-seconds or an HTTP-date).
    const hint = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs)
      ? (retryAfterMs > 0 ? retryAfterMs : undefined)
      : typeof retryAfter === 'string' ? parseRetryAfter(retryAfter, now) : undefined;
    return classifyStatus(status, hint);
  }
  if (isFerryError(error, 'FERRY_SERVICE_UNREACHABLE')) return { kind: 'transient', status: null, retryAfterMs: undefined };
  if (isFerryError(error, 'FERRY_BODY_TOO_LARGE')) return { kind: 'permanent', status: null };
  if (isFerryError(error, 'FERRY_SERVICE_AUTH')) return { kind: 'auth', status: 401 };
  if (networkErrorCode(error) !== undefined) return { kind: 'transient', status: null, retryAfterMs: undefined };
  return { kind: 'fatal' };
}

/** Where a retrying caller stands after a transient failure. */
export interface RetryState {
  /** Failed attempts so far, the one just failed included. */
  failures: number;
  /**
   * How long the service has given no successful answer, when this is an
   * outage (nothing succeeded since this request first failed); `undefined`
   * when other requests succeed meanwhile (the failure is this request's own).
   */
  outageMs?: number;
}

/**
 * Does this failure say the service is down (a 5xx, or no answer at all)?
 * Only those count towards an outage: a 408, 409 or 429 is an answer from a
 * service that is up.
 */
export function signalsOutage(status: number | null): boolean {
  return status === null || status >= 500;
}

/**
 * Retry or give up after a transient failure, and how long to wait. A
 * request gives up once `maxAttempts` attempts failed, unless the service as
 * a whole is down and has been for less than the outage budget: a scheduled
 * run rides out a short outage instead of stopping after a few seconds. Once
 * the outage has lasted the budget, any request that fails gives up. The
 * wait is the server's Retry-After when it gave one, else backoff with full jitter.
 */
export function nextRetry(
  retryAfterMs: number | undefined,
  state: RetryState,
  policy: RetryPolicy,
  random?: () => number,
): { retry: true; delayMs: number } | { retry: false } {
  const budget = policy.outageBudgetMs ?? 0;
  const riding = state.outageMs !== undefined && state.outageMs < budget;
  if (state.failures >= policy.maxAttempts && !riding) return { retry: false };
  // The service has been down longer than the budget: stop, however few attempts this request made (behind a circuit
  // breaker, a request waits through most of an outage without failing).
  if (budget > 0 && state.outageMs !== undefined && state.outageMs >= budget) return { retry: false };
  return { retry: true, delayMs: retryDelay(state.failures, policy, retryAfterMs, random) };
}

/**
 * Error codes of failures below HTTP (the request may not have reached the
 * server, or its answer was lost): Node's socket errors and undici's own.
 */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/**
 * The code of a network-level failure (`ECONNREFUSED`, `UND_ERR_SOCKET`, …),
 * looking through up to four levels of `cause` (fetch and undici wrap socket
 * errors), or `undefined` when the error is something else.
 */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = codeOf(current);
    if (code !== undefined && NETWORK_CODES.has(code)) return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * Exponential backoff with full jitter: a uniform wait in
 * `[0, min(maxDelayMs, baseDelayMs * 2^(attempt-1)))`. Spreading retries over
 * the whole window keeps many clients that failed together from retrying together.
 * @param attempt the attempt that just failed, starting at 1
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.min(policy.maxDelayMs, Math.max(policy.minDelayMs ?? 0, Math.floor(random() * window)));
}

/**
 * A `Retry-After` header in milliseconds: delay-seconds or an HTTP-date.
 * Returns `undefined` for an absent, unparseable, zero or past value: those
 * carry no usable hint, and treating them as "retry now" would spin.
 */
export function parseRetryAfter(header: string | string[] | null | undefined, now: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    const ms = Math.round(Number(text) * 1000);
    return ms > 0 ? ms : undefined;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const ms = at - now;
  return ms > 0 ? ms : undefined;
}

/**
 * The wait before the next attempt: the server's Retry-After when it gave one
 * (capped at `maxRetryAfterMs`), else backoff (capped at `maxDelayMs`).
 */
export function retryDelay(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random?: () => number,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs ?? policy.maxDelayMs);
  return backoffDelay(attempt, policy, random);
}

/** The error every abortable wait and request rejects with when its signal fires. */
export function abortedError(signal: AbortSignal | undefined, what: string): FerryError {
  return new FerryError('FERRY_ABORTED', `${what} was aborted`, {
    cause: signal?.reason instanceof Error ? signal.reason : undefined,
  });
}

/** Sleep for `ms`, or reject with FERRY_ABORTED as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal, what = 'wait'): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal, what));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stopListening?.();
      resolve();
    }, ms);
    // Thousands of retries may wait on one run's signal at once: onAbort keeps each add and remove constant-time.
    const stopListening = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(abortedError(signal, what));
        })
      : undefined;
  });
}

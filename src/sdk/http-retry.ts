/**
 * Generic retry machinery for HTTP clients: backoff with full jitter,
 * Retry-After parsing, network-failure detection and an abortable sleep.
 * Shared by ferry's service client and by connectors that call HTTP APIs,
 * so every client in ferry waits and gives up the same way.
 */
import { FerryError } from './errors.js';

/** How often and how long a client retries. */
export interface RetryPolicy {
  /** Attempts in total, the first one included. */
  maxAttempts: number;
  /** Cap of the first backoff window, in milliseconds. */
  baseDelayMs: number;
  /** No single wait (backoff or Retry-After) is longer than this, in milliseconds. */
  maxDelayMs: number;
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
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
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
  return Math.floor(random() * window);
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

/** The wait before the next attempt: the server's hint when it gave one, else backoff; capped either way. */
export function retryDelay(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random?: () => number,
): number {
  const wanted = retryAfterMs ?? backoffDelay(attempt, policy, random);
  return Math.min(wanted, policy.maxDelayMs);
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
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal, what));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

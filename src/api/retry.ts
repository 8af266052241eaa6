/**
 * The client's retry policy in one place: which failures are transient, how
 * long to wait before the next attempt, and an abortable sleep.
 * Defaults: 6 attempts, first window 250 ms, no wait above 30 s.
 */
import type { RetryPolicy } from '../sdk/http-retry.js';

// The generic parts live in the SDK so connectors calling HTTP APIs share them.
export { abortedError, backoffDelay, networkErrorCode, parseRetryAfter, retryDelay, sleep } from '../sdk/http-retry.js';
export type { RetryPolicy } from '../sdk/http-retry.js';

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 30_000 });

/** Statuses worth repeating: the request may succeed unchanged later. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

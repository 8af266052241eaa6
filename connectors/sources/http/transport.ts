/**
 * One HTTP exchange with retries: pace (token bucket), send with a timeout,
 * and repeat what the SDK's retry policy calls transient (network failures,
 * 408, 409, 429, 5xx) with backoff and full jitter, honouring Retry-After. Authentication and the meaning of the
 * final status are the caller's business.
 */
import {
  FerryError,
  abortedError,
  isRetryableStatus,
  networkErrorCode,
  parseRetryAfter,
  retryDelay,
  type ConnectorLogger,
  type RetryPolicy,
} from '../../../src/sdk/index.js';
import type { Clock } from '../../../src/sdk/index.js';
import type { TokenBucket } from './rate-limit.js';
import type { Redactor } from '../../../src/sdk/index.js';

export interface OutgoingRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The final URL (after redirects). */
  url: string;
}

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  retry: RetryPolicy;
  timeoutMs: number;
  clock: Clock;
  /** Resolved per request, so a fetch patched later (nock) is still used. */
  fetch: () => FetchFunction;
  random?: () => number;
  limiter?: TokenBucket;
  redactor: Redactor;
}

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /**
   * Send `request`, retrying transient failures. Returns the last response
   * (whatever its status) once it is not transient or attempts run out;
   * throws FERRY_SOURCE_UNREACHABLE when the server cannot be reached and
   * FERRY_ABORTED when `signal` fires.
   */
  async send(request: OutgoingRequest, context: { signal: AbortSignal; logger: ConnectorLogger; paced: boolean }): Promise<RawResponse> {
    const { retry, clock, redactor } = this.options;
    const shown = `${request.method} ${redactor.url(request.url)}`;
    for (let attempt = 1; ; attempt++) {
      if (context.paced) await this.options.limiter?.take(context.signal);
      let response: RawResponse;
      try {
        response = await this.once(request, context.signal);
      } catch (error) {
        if (context.signal.aborted) throw abortedError(context.signal, shown);
        const code = networkErrorCode(error) ?? (isTimeout(error) ? 'ETIMEDOUT' : undefined);
        const reason = code ?? describe(error);
        if (code === undefined || attempt >= retry.maxAttempts) {
          throw new FerryError('FERRY_SOURCE_UNREACHABLE', `${shown} failed${attempt > 1 ? ` after ${attempt} attempts` : ''}: ${redactor.text(reason)}`, {
            cause: error,
            hint: code === 'ETIMEDOUT' ? `the API did not answer within timeoutMs (${this.options.timeoutMs} ms)` : 'check baseUrl and that the API is reachable from here',
            details: { url: redactor.url(request.url), code: code ?? null, attempts: attempt },
          });
        }
        const wait = retryDelay(attempt, retry, undefined, this.options.random);
        context.logger.warn({ url: redactor.url(request.url), code, attempt, waitMs: wait }, 'source API unreachable; retrying');
        await clock.sleep(wait, context.signal);
        continue;
      }
      if (!isRetryableStatus(response.status) || attempt >= retry.maxAttempts) return response;
      const hinted = parseRetryAfter(response.headers.get('retry-after'), clock.now());
      const wait = retryDelay(attempt, retry, hinted, this.options.random);
      context.logger.warn({ url: redactor.url(request.url), status: response.status, attempt, waitMs: wait }, 'source API answered a transient error; retrying');
      await clock.sleep(wait, context.signal);
    }
  }

  private async once(request: OutgoingRequest, signal: AbortSignal): Promise<RawResponse> {
    const fetchFn = this.options.fetch();
    const combined = AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]);
    const response = await fetchFn(request.url.toString(), {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: combined,
      redirect: 'follow',
    });
    // The body is read under the same signal, so a stalled body times out too.
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, url: response.url || request.url.toString() };
  }
}

function isTimeout(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current.name === 'TimeoutError') return true;
    current = current.cause;
  }
  return false;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

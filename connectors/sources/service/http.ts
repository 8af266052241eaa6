/**
 * GET JSON from the service with the few things a reader needs: the key as a
 * Bearer token, a timeout per attempt, and repeating 408/429/5xx answers and
 * dropped connections with backoff (or the server's Retry-After). The waiting
 * rules are the SDK's (src/sdk/http-retry.ts), shared with ferry's own client.
 */
import { FerryError, isRetryableStatus, messageOf, networkErrorCode, parseRetryAfter, retryDelay, sleep } from '../../../src/sdk/index.js';

export interface ReadPolicy {
  /** Attempts in total, the first included. */
  maxAttempts: number;
  timeoutMs: number;
  /** Cap of the first backoff window. @default 250 */
  baseDelayMs?: number;
  /** No single wait is longer. @default 30000 */
  maxDelayMs?: number;
}

/** Seams for tests: the HTTP call and the wait between attempts. */
export interface HttpSeams {
  fetch?: typeof fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** A failed answer: its status and the service's `detail`, for callers that tolerate some (a 404 detail). */
export class HttpStatusError extends FerryError {
  readonly status: number;
  constructor(code: ConstructorParameters<typeof FerryError>[0], message: string, status: number, hint?: string) {
    super(code, message, { details: { status }, ...(hint ? { hint } : {}) });
    this.status = status;
  }
}

/** The base URL without credentials or trailing slash: safe to show and to build URLs on. */
export function cleanBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/** The `detail` of an error body, as text (never the request's headers). */
function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    const detail = body.detail;
    if (typeof detail === 'string') return detail;
    if (detail && typeof detail === 'object' && 'message' in detail && typeof detail.message === 'string') return detail.message;
    if (detail !== undefined) return JSON.stringify(detail).slice(0, 300);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 300);
}

export class ServiceHttp {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #policy: Required<ReadPolicy>;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: () => number;

  constructor(baseUrl: string, apiKey: string, policy: ReadPolicy, seams: HttpSeams = {}) {
    this.baseUrl = cleanBaseUrl(baseUrl);
    this.#apiKey = apiKey;
    this.#policy = { baseDelayMs: 250, maxDelayMs: 30_000, ...policy };
    this.#fetch = seams.fetch ?? fetch;
    this.#sleep = seams.sleep ?? ((ms, signal) => sleep(ms, signal, 'waiting to repeat a read'));
    this.#random = seams.random ?? Math.random;
  }

  /** The absolute URL of a path with its defined query values. */
  url(path: string, query: Query = {}): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.href;
  }

  /** GET a path and parse the JSON answer; throws FerryErrors (auth, unreachable, status) or the signal's reason. */
  async getJson(path: string, query: Query, signal: AbortSignal): Promise<unknown> {
    const url = this.url(path, query);
    const policy = this.#policy;
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted();
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      let failure: string;
      try {
        const response = await this.#fetch(url, {
          headers: { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' },
          signal: AbortSignal.any([signal, AbortSignal.timeout(policy.timeoutMs)]),
        });
        const text = await response.text();
        if (response.ok) {
          try {
            return JSON.parse(text) as unknown;
          } catch (cause) {
            throw new FerryError('FERRY_SOURCE_READ_FAILED', `GET ${url} answered ${response.status} with a body that is not JSON`, { cause });
          }
        }
        status = response.status;
        if (!isRetryableStatus(status)) throw this.#statusError(path, status, detailOf(text));
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        failure = `${status} ${detailOf(text)}`.trim();
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof FerryError) throw error;
        // Timeouts, refused and dropped connections: the request may succeed later.
        const code = networkErrorCode(error);
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        if (!code && !timedOut) {
          throw new FerryError('FERRY_SOURCE_UNREACHABLE', `GET ${path} on ${this.baseUrl} failed: ${messageOf(error)}`, {
            cause: error,
            details: { url },
          });
        }
        failure = timedOut ? `no answer within ${policy.timeoutMs} ms` : (code ?? 'network error');
      }
      if (attempt >= policy.maxAttempts) {
        throw new FerryError('FERRY_SOURCE_UNREACHABLE', `GET ${path} on ${this.baseUrl} failed ${attempt} time(s); last: ${failure}`, {
          hint: 'the service is down, overloaded or unreachable from here; the next run starts where this one stopped',
          details: { url, attempts: attempt, ...(status !== undefined ? { status } : {}) },
        });
      }
      await this.#sleep(retryDelay(attempt, policy, retryAfterMs, this.#random), signal);
    }
  }

  #statusError(path: string, status: number, detail: string): HttpStatusError {
    const what = `GET ${path} on ${this.baseUrl} answered ${status}: ${detail}`;
    if (status === 401) {
      return new HttpStatusError('FERRY_SOURCE_AUTH', what, status, 'the source apiKey is invalid or revoked for this service');
    }
    if (status === 403) {
      return new HttpStatusError('FERRY_SOURCE_AUTH', what, status, 'the source apiKey needs the read (Export) scope');
    }
    if (status === 404) return new HttpStatusError('FERRY_SOURCE_OBJECT_MISSING', what, status);
    if (status === 400 || status === 422) {
      return new HttpStatusError('FERRY_CONFIG_INVALID', what, status, 'check source.filters against the list endpoint\'s query parameters');
    }
    return new HttpStatusError('FERRY_SOURCE_READ_FAILED', what, status);
  }
}

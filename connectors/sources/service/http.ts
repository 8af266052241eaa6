/**
 * GET JSON from the service through the SDK's one transport (src/sdk/transport):
 * the key as a Bearer token to the base URL's origin only, a timeout per
 * attempt, 408/429/5xx answers and dropped connections repeated with backoff
 * (or the server's Retry-After), the response cap and the outage breaker.
 */
import { FerryError, HttpTransport, bodyText, fetchWire, isRetryableStatus, messageOf } from '../../../src/sdk/index.js';

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
  readonly #transport: HttpTransport;

  constructor(baseUrl: string, apiKey: string, policy: ReadPolicy, seams: HttpSeams = {}) {
    this.baseUrl = cleanBaseUrl(baseUrl);
    const fetchFn = seams.fetch;
    const authorization = `Bearer ${apiKey}`;
    // The key is the service's: the transport sends it to the base URL's origin only, and follows no redirect elsewhere.
    this.#transport = new HttpTransport({
      origins: this.baseUrl,
      retry: { maxAttempts: policy.maxAttempts, baseDelayMs: policy.baseDelayMs ?? 250, maxDelayMs: policy.maxDelayMs ?? 30_000, maxRetryAfterMs: policy.maxDelayMs ?? 30_000, minDelayMs: 0 },
      timeoutMs: policy.timeoutMs,
      authorize: (request) => ({ ...request, headers: { ...request.headers, authorization } }),
      wire: fetchWire(fetchFn ? () => fetchFn : undefined),
      errors: { what: 'the service' },
      ...(seams.sleep ? { sleep: (ms: number, signal?: AbortSignal) => seams.sleep!(ms, signal ?? new AbortController().signal) } : {}),
      ...(seams.random ? { random: seams.random } : {}),
    });
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
    let answer;
    try {
      answer = await this.#transport.send({ method: 'GET', url: new URL(url), headers: { accept: 'application/json' } }, { signal, label: `GET ${path}` });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof FerryError) throw error;
      throw new FerryError('FERRY_SOURCE_UNREACHABLE', `GET ${path} on ${this.baseUrl} failed: ${messageOf(error)}`, { cause: error, details: { url } });
    }
    const text = bodyText(answer.body);
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return JSON.parse(text) as unknown;
      } catch (cause) {
        throw new FerryError('FERRY_SOURCE_READ_FAILED', `GET ${url} answered ${answer.status} with a body that is not JSON`, { cause });
      }
    }
    if (!isRetryableStatus(answer.status)) throw this.#statusError(path, answer.status, detailOf(text));
    throw new FerryError('FERRY_SOURCE_UNREACHABLE', `GET ${path} on ${this.baseUrl} failed ${answer.attempts} time(s); last: ${`${answer.status} ${detailOf(text)}`.trim()}`, {
      hint: 'the service is down, overloaded or unreachable from here; the next run starts where this one stopped',
      details: { url, attempts: answer.attempts, status: answer.status },
    });
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

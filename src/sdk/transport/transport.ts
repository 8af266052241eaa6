/**
 * ferry's one request path. Every HTTP call — the service client (and so the
 * pusher), the `http` and `service` sources, plugins — goes through an
 * {@link HttpTransport}: one attempt loop, one classification of what is
 * retried (the SDK's retry policy, http-retry.ts), Retry-After, backoff with
 * full jitter, a timeout per attempt, the outage budget, a cap on what an
 * answer may be, credentials bound to their origin (origins.ts), a circuit
 * breaker for outages (breaker.ts), an optional token bucket, and the hooks
 * rate control reads: every answer's status and latency, every retry.
 * docs/sink.md and docs/http-connector.md give the policy and its reasons.
 */
import { FerryError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { abortedError, DEFAULT_RETRY, isRetryableStatus, networkErrorCode, nextRetry, parseRetryAfter, signalsOutage, sleep } from '../http-retry.js';
import type { RetryPolicy } from '../http-retry.js';
import { CircuitBreaker } from './breaker.js';
import { ANSWERED, FINAL, retrying } from './service-health.js';
import type { AttemptVerdict, ServiceHealth } from './service-health.js';
import type { BreakerTicket } from './breaker.js';
import { OriginPolicy } from './origins.js';
import type { OriginVerdict } from './origins.js';
import type { TokenBucket } from './token-bucket.js';
import type { ControlTicket, RequestControl } from './control/request-control.js';
import { fetchWire, ResponseTooLarge } from './wire.js';
import type { AnswerHeaders, Wire, WireAnswer, WireRequest } from './wire.js';

/** 64 MiB: the default cap on one answer's (decompressed) body. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Redirects followed for one request at most. */
const MAX_REDIRECTS = 10;
/** Headers a request keeps on an origin that gets no credentials; every other header may carry one. */
const ANONYMOUS_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'content-length', 'user-agent']);

/** One request as a caller hands it to the transport. */
export type TransportRequest = WireRequest;

/** The answer the transport returns: the last one, whatever its status, once it is not retried. */
export interface TransportAnswer {
  status: number;
  headers: AnswerHeaders;
  body: Buffer | string;
  /** Where it came from, as sent (after redirects; with a query credential, if one was added: redact before showing). A path is on the home origin. */
  url: URL | string;
  /** Attempts it took. */
  attempts: number;
}

/** What the transport reports after each attempt: the signal adaptive rate and concurrency control read. */
export interface AnswerEvent {
  /** The caller's name for the request (an endpoint, a stream). */
  label: string;
  method: string;
  /** A URL, or a path on the transport's home origin. */
  url: URL | string;
  /** HTTP status, or null when nothing was answered (refused, reset, timed out). */
  status: number | null;
  /** The network error's code when nothing was answered (`ECONNREFUSED`, `ETIMEDOUT`). */
  errorCode?: string;
  /** From sending to the whole answer read, ms. */
  latencyMs: number;
  attempt: number;
  headers?: AnswerHeaders;
}

/** A retry about to wait. */
export interface RetryEvent {
  label: string;
  status?: number;
  errorCode?: string;
  attempt: number;
  delayMs: number;
  retryAfterMs?: number;
}

/** Hooks for whoever watches or steers the request rate. They must not throw. */
export interface TransportObserver {
  onAnswer?(event: AnswerEvent): void;
  onRetry?(event: RetryEvent): void;
}

/** Waited on before every attempt (a request-rate budget shared across processes, say). */
export interface AttemptGate {
  acquire(signal?: AbortSignal): Promise<void>;
}

/** What the errors a transport throws are called: a source's and the service's differ. */
export interface TransportErrors {
  /** For an answer that never came after every attempt. @default FERRY_SOURCE_UNREACHABLE */
  unreachable?: ErrorCode;
  /** For an answer over the cap. @default FERRY_SOURCE_RESPONSE_TOO_LARGE */
  tooLarge?: ErrorCode;
  /** Names what is reached, in messages: `the service`, `the source API`. @default 'the API' */
  what?: string;
  /** The hint of an `unreachable` error, instead of the default one. */
  unreachableHint?: string;
  /** Shows a URL in messages with its secrets masked. @default origin and path */
  showUrl?: (url: URL) => string;
}

export interface TransportOptions {
  /** The origin policy; or a base URL, for "its origin only". */
  origins: OriginPolicy | string | URL;
  retry?: Partial<RetryPolicy>;
  /** Per attempt. @default 30000 */
  timeoutMs?: number;
  /** Cap on one answer's decompressed body. @default {@link DEFAULT_MAX_RESPONSE_BYTES} */
  maxResponseBytes?: number;
  /** Adds credentials to a request bound for an origin that gets them. */
  authorize?: (request: TransportRequest, context: { signal: AbortSignal | undefined }) => TransportRequest | Promise<TransportRequest>;
  /** Query parameters that carry credentials (an API key in the query): removed from URLs sent without credentials. */
  credentialParams?: readonly string[];
  /** One breaker per service or API; made here when not shared. */
  breaker?: CircuitBreaker;
  /** Paces every attempt (a source's `maxRequestsPerSecond`). */
  bucket?: TokenBucket;
  /** Adaptive concurrency and rate (control/request-control.ts): every attempt is admitted by it and tells it its answer. */
  control?: RequestControl;
  gate?: AttemptGate;
  observer?: TransportObserver;
  wire?: Wire;
  errors?: TransportErrors;
  /** [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** Waits between attempts. @default the SDK's abortable sleep */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Monotonic milliseconds (attempt latency, outage length). @default performance.now */
  now?: () => number;
  /** Epoch milliseconds, for a Retry-After given as a date. @default Date.now */
  wallClock?: () => number;
}

/** Per request. */
export interface SendOptions {
  signal?: AbortSignal;
  /** `false`: one attempt (a caller that does not retry); an object overrides parts of the policy. */
  retry?: false | Partial<RetryPolicy>;
  timeoutMs?: number;
  /** For events and messages. @default `METHOD path` */
  label?: string;
  /** Wait for the token bucket (when there is one). @default true */
  paced?: boolean;
  /** Another origin policy for this request (an OAuth token endpoint has its own origin). */
  origins?: OriginPolicy;
  /** Follow redirects (checked against the origin policy). @default true */
  followRedirects?: boolean;
  /** Waited on before every attempt, besides the transport's gate. */
  gate?: AttemptGate;
  /** How the request's URL was reached, for a refusal: `follow a next link`. @default 'send a request' */
  reachedBy?: string;
  /** The URL it was reached from (a link on this page): a step from https to http is refused. */
  from?: URL;
  /** `false`: do not add the transport's credentials (the request carries its own, as an OAuth token request does). */
  credentials?: false;
  /** Admits this request's attempts instead of the transport's own control (a sync's, with its own bounds). */
  control?: RequestControl;
  /** `false`: the control does not spread this request over the round trip (one of several whose answers are needed together). @default true */
  spread?: boolean;
  /** Told of this request's retries, after the transport's observer (a caller's log line). Must not throw. */
  onRetry?: (event: RetryEvent) => void;
}

/** Options of {@link HttpTransport.attempt} (undefined values allowed: the hot path builds them without spreads). */
export interface AttemptOptions {
  signal?: AbortSignal | undefined;
  /**
   * Stops a wait for the breaker (not a request already sent), when `signal`
   * is not given: the pusher's requests finish once sent, but a run that has
   * stopped must not queue its records up as probes. @default signal
   */
  hold?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  label?: string | undefined;
  /** `false`: do not add the transport's credentials (a call that needs none). */
  credentials?: false | undefined;
  /** Admits the attempt instead of the transport's own control. */
  control?: RequestControl | undefined;
  /** `false`: not spread over the round trip by the control (see {@link SendOptions.spread}). */
  spread?: boolean | undefined;
  /** Waited on before every attempt (a request-rate budget shared across processes). */
  gate?: AttemptGate | undefined;
  /**
   * Retry transient failures under this policy and the health view of the
   * service it shares with the caller's other requests (service-health.ts:
   * the pusher's). Without it, one attempt.
   */
  retry?: ServiceHealth | undefined;
}

/**
 * See the module comment. One per service or API (its breaker, bucket and
 * origin are those of that one service); cheap to call per request.
 */
export class HttpTransport {
  readonly breaker: CircuitBreaker;
  readonly origins: OriginPolicy;
  readonly maxResponseBytes: number;
  readonly timeoutMs: number;
  private readonly policy: Readonly<Required<RetryPolicy>>;
  private readonly oneAttempt: Readonly<Required<RetryPolicy>>;
  private readonly wire: Wire;
  private readonly options: TransportOptions;
  private readonly sleepFn: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly credentialParams: readonly string[];

  constructor(options: TransportOptions) {
    this.options = options;
    this.origins = options.origins instanceof OriginPolicy ? options.origins : OriginPolicy.homeOnly(options.origins);
    this.policy = Object.freeze({ ...DEFAULT_RETRY, ...definedOnly(options.retry ?? {}) });
    this.oneAttempt = Object.freeze({ ...this.policy, maxAttempts: 1, outageBudgetMs: 0 });
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.breaker = options.breaker ?? new CircuitBreaker();
    this.wire = options.wire ?? fetchWire();
    this.sleepFn = options.sleep ?? ((ms, signal) => sleep(ms, signal, 'waiting to retry'));
    this.now = options.now ?? (() => performance.now());
    this.credentialParams = options.credentialParams ?? [];
  }

  /** The retry policy in force (after the caller's overrides). */
  get retryPolicy(): Readonly<Required<RetryPolicy>> {
    return this.policy;
  }

  /**
   * Send `request`: check its origin, add credentials where they belong,
   * retry what is transient, follow redirects the origin policy allows.
   * Returns the last answer, whatever its status (the caller decides what a
   * 4xx means); throws FERRY_ORIGIN_REFUSED, the `unreachable` and `tooLarge`
   * codes of {@link TransportErrors}, or FERRY_ABORTED when `signal` fires.
   */
  async send(request: TransportRequest, options: SendOptions = {}): Promise<TransportAnswer> {
    const { signal } = options;
    const policy = options.retry === false ? this.oneAttempt : options.retry === undefined ? this.policy : { ...this.policy, ...definedOnly(options.retry) };
    const origins = options.origins ?? this.origins;
    const label = options.label ?? `${request.method} ${pathOf(request.url)}`;
    const observer = this.options.observer;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const control = options.control ?? this.options.control;
    let current = request;
    // A path is on the home origin by construction; a URL is checked.
    let verdict: OriginVerdict = typeof current.url === 'string' ? 'credentials' : origins.check(current.url, options.from, options.reachedBy ?? 'send a request');
    let redirects = 0;
    let failingSince: number | undefined;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortedError(signal, label);
      await this.options.gate?.acquire(signal);
      await options.gate?.acquire(signal);
      if (options.paced !== false) await this.options.bucket?.take(signal);
      const admitted = control?.enter(signal, options.spread !== false);
      const admission = admitted instanceof Promise ? await admitted : admitted;
      let ticket: BreakerTicket;
      let sent: WireRequest;
      try {
        const entered = this.breaker.enter(signal);
        ticket = entered instanceof Promise ? await entered : entered;
      } catch (error) {
        if (admission) control?.leave(admission, 'unsent');
        throw error;
      }
      try {
        sent = await this.prepare(current, options.credentials === false && verdict === 'credentials' ? 'as-is' : verdict, signal);
      } catch (error) {
        this.breaker.leave(ticket, 'unsent');
        if (admission) control?.leave(admission, 'unsent');
        throw error;
      }
      const started = this.now();
      let answer: WireAnswer;
      try {
        answer = await this.wire(sent, { signal, origin: origins.home, timeoutMs, maxBytes: this.maxResponseBytes });
      } catch (caught) {
        if (admission) control?.leave(admission, signal?.aborted ? 'unsent' : null);
        const outcome = this.unanswered(caught, ticket, signal, label, current.url);
        observer?.onAnswer?.({ label, method: sent.method, url: current.url, status: null, errorCode: outcome.errorCode, latencyMs: this.now() - started, attempt });
        failingSince ??= started;
        const next = nextRetry(undefined, { failures: attempt, outageMs: this.outageMs(failingSince) }, policy, this.options.random);
        if (!next.retry) throw this.unreachable(label, current.url, attempt, outcome.errorCode, outcome.error, timeoutMs);
        const event: RetryEvent = { label, errorCode: outcome.errorCode, attempt, delayMs: next.delayMs };
        observer?.onRetry?.(event);
        options.onRetry?.(event);
        await this.sleepFn(next.delayMs, signal);
        continue;
      }
      const { status, headers } = answer;
      this.breaker.leave(ticket, signalsOutage(status) ? 'down' : 'up');
      if (admission) control?.leave(admission, status, status === 429 ? this.retryAfter(headers) : undefined, headers);
      observer?.onAnswer?.({ label, method: sent.method, url: current.url, status, latencyMs: this.now() - started, attempt, headers });
      const location = options.followRedirects === false ? undefined : redirectTarget(status, headers, this.absolute(current.url, origins));
      if (location !== undefined) {
        if (++redirects > MAX_REDIRECTS) throw this.loop(label, current.url);
        verdict = origins.check(location, this.absolute(current.url, origins), 'follow a redirect');
        current = redirected(current, status, location);
        attempt = 0;
        continue;
      }
      if (isRetryableStatus(status)) {
        failingSince = signalsOutage(status) ? (failingSince ?? started) : undefined;
        const retryAfterMs = this.retryAfter(headers);
        const outage = failingSince === undefined ? {} : { outageMs: this.outageMs(failingSince) };
        const next = nextRetry(retryAfterMs, { failures: attempt, ...outage }, policy, this.options.random);
        if (next.retry) {
          const event: RetryEvent = { label, status, attempt, delayMs: next.delayMs, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
          observer?.onRetry?.(event);
          options.onRetry?.(event);
          await this.sleepFn(next.delayMs, signal);
          continue;
        }
      }
      return { status, headers, body: answer.body, url: sent.url, attempts: attempt };
    }
  }

  /**
   * A request to a path on the home origin for a caller that runs its own
   * queue (the pusher): one attempt, or with `retry` the attempts its policy
   * and the service's health allow (service-health.ts), each admitted by the
   * control, through the breaker and the observer like every attempt of
   * {@link send}; no redirect followed, no fixed bucket. Between attempts
   * nothing is held. Resolves with the last answer whatever its status
   * (`attempts` says how many it took); rejects with the `unreachable` code
   * (no answer), `tooLarge`, or FERRY_ABORTED.
   */
  attempt(request: WireRequest & { url: string }, options: AttemptOptions = {}): Promise<TransportAnswer> {
    const health = options.retry;
    if (health === undefined) return this.attemptNumber(request, options, 1);
    return retrying(health, (n) => this.attemptNumber(request, options, n), this.verdictOf, options.hold ?? options.signal, options.label ?? request.method);
  }

  /** How an attempt of {@link attempt} came out, for the retry loop. */
  private readonly verdictOf = (failed: boolean, outcome: unknown): AttemptVerdict => {
    if (failed) {
      const unreachable = this.options.errors?.unreachable ?? 'FERRY_SOURCE_UNREACHABLE';
      return outcome instanceof FerryError && outcome.code === unreachable ? { kind: 'transient', status: null, retryAfterMs: undefined } : FINAL;
    }
    const { status, headers } = outcome as TransportAnswer;
    if (!isRetryableStatus(status)) return ANSWERED;
    return { kind: 'transient', status, retryAfterMs: this.retryAfter(headers) };
  };

  /**
   * Attempt `n` of {@link attempt}. Written with `then` rather than as an
   * async function: at thousands of pushes a second, each promise saved counts.
   */
  private attemptNumber(request: WireRequest & { url: string }, options: AttemptOptions, n: number): Promise<TransportAnswer> {
    const gate = options.gate;
    if (gate !== undefined) return gate.acquire(options.signal ?? options.hold).then(() => this.admitted(request, options, n));
    return this.admitted(request, options, n);
  }

  /** Admitted by the control (when there is one). */
  private admitted(request: WireRequest & { url: string }, options: AttemptOptions, n: number): Promise<TransportAnswer> {
    const control = options.control ?? this.options.control;
    if (control === undefined) return this.pastControl(undefined, undefined, request, options, n);
    const admitted = control.enter(options.signal ?? options.hold, options.spread !== false);
    if (admitted instanceof Promise) return admitted.then((admission) => this.pastControl(control, admission, request, options, n));
    return this.pastControl(control, admitted, request, options, n);
  }

  /** Admitted by the control (when there is one): through the breaker. */
  private pastControl(control: RequestControl | undefined, admission: ControlTicket | undefined, request: WireRequest & { url: string }, options: AttemptOptions, n: number): Promise<TransportAnswer> {
    const entered = this.breaker.enter(options.signal ?? options.hold);
    if (!(entered instanceof Promise)) return this.attemptWith(entered, control, admission, request, options, n);
    return entered.then(
      (ticket) => this.attemptWith(ticket, control, admission, request, options, n),
      (error: unknown) => {
        if (admission) control?.leave(admission, 'unsent');
        throw error;
      },
    );
  }

  private attemptWith(
    ticket: BreakerTicket,
    control: RequestControl | undefined,
    admission: ControlTicket | undefined,
    request: WireRequest & { url: string },
    options: AttemptOptions,
    n: number,
  ): Promise<TransportAnswer> {
    const { signal } = options;
    const label = options.label ?? `${request.method} ${request.url}`;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const authorize = options.credentials === false ? undefined : this.options.authorize;
    const observer = this.options.observer;
    let started = 0;
    const send = (sent: WireRequest): Promise<WireAnswer> => {
      started = this.now();
      return this.wire(sent, { signal, origin: this.origins.home, timeoutMs, maxBytes: this.maxResponseBytes });
    };
    let sending: Promise<WireAnswer>;
    try {
      const prepared = authorize ? authorize(request, { signal }) : request;
      sending = prepared instanceof Promise ? prepared.then(send) : send(prepared);
    } catch (error) {
      this.breaker.leave(ticket, 'unsent');
      if (admission) control?.leave(admission, 'unsent');
      return Promise.reject(error);
    }
    return sending.then(
      (answer) => {
        const { status } = answer;
        this.breaker.leave(ticket, signalsOutage(status) ? 'down' : 'up');
        if (admission) control?.leave(admission, status, status === 429 ? this.retryAfter(answer.headers) : undefined, answer.headers);
        observer?.onAnswer?.({ label, method: request.method, url: request.url, status, latencyMs: this.now() - started, attempt: n, headers: answer.headers });
        return { status, headers: answer.headers, body: answer.body, url: request.url, attempts: n };
      },
      (caught: unknown) => {
        if (admission) control?.leave(admission, signal?.aborted ? 'unsent' : null);
        const outcome = this.unanswered(caught, ticket, signal, label, request.url);
        observer?.onAnswer?.({ label, method: request.method, url: request.url, status: null, errorCode: outcome.errorCode, latencyMs: this.now() - started, attempt: n });
        throw this.unreachable(label, request.url, n, outcome.errorCode, outcome.error, timeoutMs);
      },
    );
  }

  /** An answer's Retry-After, in ms (undefined: none usable). */
  private retryAfter(headers: AnswerHeaders): number | undefined {
    return parseRetryAfter(headers['retry-after'], this.options.wallClock?.() ?? Date.now());
  }

  /** A request's URL as a URL (a path is on the policy's home origin). */
  private absolute(url: URL | string, origins: OriginPolicy): URL {
    return typeof url === 'string' ? new URL(url, origins.home) : url;
  }

  /** The request as it goes out: with credentials, or stripped of everything that may carry one. */
  private async prepare(request: TransportRequest, verdict: OriginVerdict | 'as-is', signal: AbortSignal | undefined): Promise<WireRequest> {
    if (verdict === 'as-is') return request;
    if (verdict === 'credentials') return this.options.authorize ? this.options.authorize(request, { signal }) : request;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (ANONYMOUS_HEADERS.has(name.toLowerCase())) headers[name] = value;
    let url = request.url;
    if (typeof url !== 'string' && this.credentialParams.some((name) => (url as URL).searchParams.has(name))) {
      url = new URL(url);
      for (const name of this.credentialParams) url.searchParams.delete(name);
    }
    return { ...request, url, headers };
  }

  /** How long the service has been failing: this request's own streak, or the breaker's when it is open. */
  private outageMs(failingSince: number): number {
    return Math.max(this.now() - failingSince, this.breaker.downForMs() ?? 0);
  }

  /** An attempt that got no answer: rethrows what is not a network failure; else its code, for a retry. */
  private unanswered(caught: unknown, ticket: BreakerTicket, signal: AbortSignal | undefined, label: string, url: URL | string): { error: unknown; errorCode: string } {
    if (signal?.aborted) {
      this.breaker.leave(ticket, 'unsent');
      throw abortedError(signal, label);
    }
    if (caught instanceof ResponseTooLarge) {
      this.breaker.leave(ticket, 'up');
      throw this.tooLarge(label, url, caught);
    }
    const errorCode = isTimeout(caught) ? 'ETIMEDOUT' : networkErrorCode(caught);
    if (errorCode === undefined) {
      this.breaker.leave(ticket, 'unsent');
      throw caught;
    }
    this.breaker.leave(ticket, 'down');
    return { error: caught, errorCode };
  }

  private show(url: URL | string): string {
    const absolute = this.absolute(url, this.origins);
    return this.options.errors?.showUrl?.(absolute) ?? `${absolute.origin}${absolute.pathname}`;
  }

  private unreachable(label: string, url: URL | string, attempts: number, errorCode: string, error: unknown, timeoutMs: number): FerryError {
    const what = this.options.errors?.what ?? 'the API';
    return new FerryError(
      this.options.errors?.unreachable ?? 'FERRY_SOURCE_UNREACHABLE',
      `${label}: could not reach ${what} at ${this.absolute(url, this.origins).origin} after ${attempts} attempt${attempts === 1 ? '' : 's'} (${errorCode})`,
      {
        cause: error instanceof Error ? new Error(`${error.name}: ${errorCode}`) : undefined,
        hint:
          this.options.errors?.unreachableHint ??
          (errorCode === 'ETIMEDOUT' ? `no answer within timeoutMs (${timeoutMs} ms); is ${what} overloaded?` : `is ${what} up and reachable from here (${this.absolute(url, this.origins).origin})?`),
        details: { url: this.show(url), attempts, errorCode },
      },
    );
  }

  private tooLarge(label: string, url: URL | string, error: ResponseTooLarge): FerryError {
    const shown = this.show(url);
    return new FerryError(
      this.options.errors?.tooLarge ?? 'FERRY_SOURCE_RESPONSE_TOO_LARGE',
      `${label}: the answer from ${shown} ${error.contentLength === undefined ? `grew past the cap of ${error.limit} bytes (decompressed)` : `announced ${error.contentLength} bytes, over the cap of ${error.limit}; it was not read`}`,
      {
        hint: 'raise maxResponseBytes if answers this large are expected, or ask for smaller pages',
        details: { url: shown, limit: error.limit, ...(error.contentLength === undefined ? {} : { contentLength: error.contentLength }) },
      },
    );
  }

  private loop(label: string, url: URL | string): FerryError {
    return new FerryError('FERRY_SOURCE_READ_FAILED', `${label}: more than ${MAX_REDIRECTS} redirects, the last to ${this.show(url)}`, {
      hint: 'the API redirects in a loop; check the URL',
      details: { url: this.show(url) },
    });
  }
}

/** The target of a redirect answer, or undefined when the answer is not one. */
function redirectTarget(status: number, headers: AnswerHeaders, from: URL): URL | undefined {
  if (status !== 301 && status !== 302 && status !== 303 && status !== 307 && status !== 308) return undefined;
  const value = headers.location;
  const location = Array.isArray(value) ? value[0] : value;
  if (location === undefined || location === '') return undefined;
  try {
    return new URL(location, from);
  } catch {
    return undefined;
  }
}

/** The request a redirect asks for: 303 (and 301/302 of a POST) become a GET without body, as browsers and fetch do. */
function redirected(request: TransportRequest, status: number, location: URL): TransportRequest {
  // From here on the URL is absolute, even when the first was a path on the home origin.
  if (status === 307 || status === 308 || request.method === 'GET' || request.method === 'HEAD') return { ...request, url: location };
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !/^content-/i.test(name)));
  return { method: 'GET', url: location, headers };
}

function pathOf(url: URL | string): string {
  return typeof url === 'string' ? url.replace(/\?.*$/, '') : url.pathname;
}

function isTimeout(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current.name === 'TimeoutError') return true;
    const code = (current as { code?: unknown }).code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return true;
    current = current.cause;
  }
  return false;
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

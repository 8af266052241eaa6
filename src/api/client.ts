/**
 * The typed client of the service. One generic core, {@link ServiceClient.call},
 * is driven by the ENDPOINTS table (path, method, schemas); the named methods
 * are thin typed wrappers over it. Retries, timeouts, error classification and
 * key redaction all live in the core, once.
 */
import { inspect } from 'node:util';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { FerryError } from '../sdk/errors.js';
import { messageOf } from '../sdk/guards.js';
import { ENDPOINTS } from './endpoints.js';
import { dispatcherWire } from './exchange.js';
import { Pool } from './fast/undici-pool.js';
import { fastCheckOf } from './schemas/fast/fast-check.js';
import type { FastCheck } from './schemas/fast/fast-check.js';
import { fastParseOf, NOT_PARSED } from './schemas/fast/fast-parse.js';
import type { FastParse } from './schemas/fast/fast-parse.js';
import type { Endpoint, EndpointName } from './endpoints.js';
import { buildQuery, fillPath, jsonBytes, normaliseBaseUrl, resolveLocation, serialiseBody } from './http.js';
import { paginate } from './pagination.js';
import { REDACTED, redact, redactError, redactValue } from '../sdk/redact.js';
import { DEFAULT_RETRY, abortedError, parseRetryAfter, sleep } from '../sdk/http-retry.js';
import type { RetryPolicy } from '../sdk/http-retry.js';
import { CircuitBreaker } from '../sdk/transport/breaker.js';
import type { BreakerState, BreakerStats } from '../sdk/transport/breaker.js';
import { OriginPolicy } from '../sdk/transport/origins.js';
import { HttpTransport } from '../sdk/transport/transport.js';
import type { SendOptions, TransportAnswer, TransportObserver } from '../sdk/transport/transport.js';
import { ServiceHealth } from '../sdk/transport/service-health.js';
import type { RequestControl } from '../sdk/transport/control/request-control.js';
import { bodyText } from '../sdk/transport/wire.js';
import { ServiceError, serviceErrorFromResponse } from './service-error.js';

type Table = typeof ENDPOINTS;

/** The parsed success body of an endpoint. */
export type ResponseOf<N extends EndpointName> = z.output<Table[N]['response']>;

/**
 * Coerced query numbers (`limit`, `amountMin`) have `unknown` as zod input
 * type; callers pass numbers there.
 */
type TidyQuery<T> = { [K in keyof T]: unknown extends T[K] ? number | undefined : T[K] };

/** The query parameters an endpoint accepts, as the caller writes them. */
export type QueryOf<N extends EndpointName> = Table[N] extends { query: infer Q extends z.ZodType } ? TidyQuery<z.input<Q>> : never;

/** The request body an endpoint accepts, as the caller writes it (timestamps in any accepted form). */
export type BodyOf<N extends EndpointName> = Table[N] extends { body: infer B extends z.ZodType } ? z.input<B> : never;

/** Endpoints that return a cursor-paginated page. */
export type ListEndpointName = {
  [N in EndpointName]: Table[N] extends { itemsKey: string } ? N : never;
}[EndpointName];

/** One item of a list endpoint's page. */
export type ItemOf<N extends ListEndpointName> = ResponseOf<N> extends infer P
  ? Table[N] extends { itemsKey: infer K extends keyof P }
    ? P[K] extends readonly (infer I)[]
      ? I
      : never
    : never
  : never;

/** Filters of a list endpoint without the cursor, which the iterator manages. */
export type FiltersOf<N extends ListEndpointName> = Omit<QueryOf<N>, 'cursor'>;

/** The key of a pushed record on PATCH and DELETE. */
export type RecordKey = QueryOf<'deleteRow'>;

/** Hooks for whoever adapts the request rate (the sink's AIMD limiter). They must not throw. */
export interface ClientObserver {
  /** After every HTTP answer, successful or not. */
  onResponse?(event: { endpoint: EndpointName; status: number; durationMs: number; attempt: number }): void;
  /** Before waiting for the next attempt. */
  onRetry?(event: {
    endpoint: EndpointName;
    status?: number;
    errorCode?: string;
    attempt: number;
    delayMs: number;
    retryAfterMs?: number;
  }): void;
  /** When the outage breaker changes state (closed, open, half-open). */
  onBreaker?(event: { state: BreakerState; consecutiveFailures: number; openForMs: number }): void;
}

/**
 * What every attempt waits on before it is sent: the request-rate budget an
 * API key shares across processes (src/runtime/rate-budget.ts). Retries
 * wait too, so the budget counts requests as the service does.
 */
export interface RequestGate {
  acquire(signal?: AbortSignal): Promise<void>;
}

export interface ServiceClientOptions {
  /** Root of the service, with or without a trailing slash (`https://api.example.com`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never logged or put in errors. */
  apiKey?: string;
  /**
   * Keep-alive connections to the service at most (opened as requests need
   * them). Set it to the most requests the client's control lets in flight:
   * a request waiting inside the pool for a connection is time the control
   * reads as the service's latency. @default 8
   */
  concurrency?: number;
  /** Per attempt: the answer's headers must come within it, and the body never stall as long (undici's timers, to about a second). @default 30000 */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** @default `ferry/<version>` */
  userAgent?: string;
  observer?: ClientObserver;
  /** Waited on before every attempt; none by default. */
  gate?: RequestGate;
  /** An undici dispatcher to use instead of the client's own pool (tests pass a MockAgent). */
  dispatcher?: Dispatcher;
  /** Cap on one answer's body. @default 64 MiB */
  maxResponseBytes?: number;
  /** Adaptive concurrency and rate for every call without its own (exports, setup calls); none by default. */
  control?: RequestControl;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * `false`: one attempt only; an object overrides parts of the client's
   * policy; a {@link ServiceHealth}: the transport retries under its policy
   * and the service's health it shares with the caller's other calls (the
   * pusher's record pushes).
   */
  retry?: false | Partial<RetryPolicy> | ServiceHealth;
  /** Per attempt. @default the client's timeoutMs */
  timeoutMs?: number;
  /** With `retry: false` or a ServiceHealth and no `signal`: stops a wait for the outage breaker, not a request already sent (the pusher's). */
  hold?: AbortSignal;
  /**
   * The body's JSON text when the caller has it already (the pusher: the
   * canonical JSON the record's fingerprint hashed), sent instead of
   * serialising `body` a second time. It must be `body` as JSON.
   */
  json?: string;
  /** Admits the call's attempts (adaptive concurrency and rate) instead of the client's own control: a sync's, with its bounds. */
  control?: RequestControl;
  /** `false`: not spread over the round trip by the control's pacer (a list reader's probes, all needed before it goes on). */
  spread?: false;
}

export interface CallOptions<N extends EndpointName> extends RequestOptions {
  /** Values of the `{name}` placeholders in the endpoint's path. */
  params?: Readonly<Record<string, string>>;
  query?: QueryOf<N>;
  body?: BodyOf<N>;
}

/** A success answer with its status and headers (ask polling needs both). */
export interface Answer<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  data: T;
}

export interface AskOptions {
  /** Give up (FERRY_ASK_FAILED) when no terminal answer arrived within this time. @default 600000 */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** Called with each `running` envelope, before waiting to poll again. */
  onPoll?: (run: ResponseOf<'pollAsk'>) => void;
  /** Wait between polls when the service sends no Retry-After. @default 5000 */
  pollIntervalMs?: number;
}

/** The service holds each ask request up to 60 s; a shorter timeout would cut every long poll. */
const ASK_WAIT_MS = 60_000;
const ASK_TIMEOUT_MARGIN_MS = 10_000;

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_USER_AGENT = 'ferry/0.1.0';


export class ServiceClient {
  readonly #base: URL;
  /** Path of the base URL without trailing slash; `''` at the root. */
  readonly #prefix: string;
  readonly #apiKey: string | undefined;
  /** `Bearer <key>`, built once rather than per request. */
  readonly #authorization: string | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #retry: Readonly<RetryPolicy>;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #observer: ClientObserver;
  readonly #concurrency: number;
  readonly #gate: RequestGate | undefined;
  /** The one request path (src/sdk/transport): every attempt of every call goes through it. */
  readonly #transport: HttpTransport;

  constructor(options: ServiceClientOptions) {
    const { url, prefix } = normaliseBaseUrl(options.baseUrl);
    this.#base = url;
    this.#prefix = prefix;
    this.#apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.#authorization = this.#apiKey === undefined ? undefined : `Bearer ${this.#apiKey}`;
    this.#concurrency = positiveInt(options.concurrency, DEFAULT_CONCURRENCY, 'concurrency');
    this.#timeoutMs = positiveInt(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    // The client caps every wait, Retry-After included, at maxDelayMs (docs/client.md); the pusher honours longer hints.
    const { maxRetryAfterMs: _pusherOnly, ...clientDefaults } = DEFAULT_RETRY;
    this.#retry = Object.freeze(mergePolicy(clientDefaults, options.retry));
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#observer = options.observer ?? {};
    this.#gate = options.gate;
    this.#ownsDispatcher = options.dispatcher === undefined;
    // A Pool, not an Agent: every request goes to the service's one origin (the key is never sent elsewhere), so
    // an Agent's per-request origin lookup and its layer of events over the pool are work for nothing.
    this.#dispatcher =
      options.dispatcher ??
      new Pool(url.origin, { connections: this.#concurrency, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
    const observer = this.#observer;
    const onBreaker = observer.onBreaker;
    this.#transport = new HttpTransport({
      // The key belongs to the service's origin: nothing is ever sent elsewhere (a redirect away is refused).
      origins: OriginPolicy.homeOnly(url, 'service.baseUrl'),
      retry: capHints(this.#retry),
      timeoutMs: this.#timeoutMs,
      ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
      wire: dispatcherWire(this.#dispatcher),
      authorize: (request) => {
        if (this.#authorization !== undefined) request.headers.authorization = this.#authorization;
        return request;
      },
      breaker: new CircuitBreaker(onBreaker ? { onStateChange: (state, info) => onBreaker.call(observer, { state, ...info }) } : {}),
      observer: transportObserver(observer),
      ...(options.control ? { control: options.control } : {}),
      errors: {
        unreachable: 'FERRY_SERVICE_UNREACHABLE',
        tooLarge: 'FERRY_SERVICE_ERROR',
        what: 'the service',
        unreachableHint: `is service.baseUrl right (${this.baseUrl})? is the service up and reachable from here?`,
      },
    });
  }

  /** The outage breaker's state and counts (for metrics and the run's summary). */
  breakerStats(): BreakerStats {
    return this.#transport.breaker.stats();
  }

  /** The normalised base URL (no trailing slash, no credentials). */
  get baseUrl(): string {
    return `${this.#base.origin}${this.#prefix}`;
  }

  /**
   * Call an endpoint by name: substitute path parameters, send the query's
   * defined values and the JSON body, retry transient failures, and return the
   * success body parsed with the endpoint's response schema.
   */
  call<N extends EndpointName>(name: N, options: CallOptions<N> = {}): Promise<ResponseOf<N>> {
    // The sink's pushes (retried by the transport under the push's ServiceHealth), and single attempts: one promise on top of the transport's.
    if (options.retry instanceof ServiceHealth || (options.retry === false && this.#gate === undefined)) return this.#callOnce(name, options);
    return this.#send(name, options).then(dataOf);
  }

  /** Like {@link call}, with the answer's status and headers. */
  send<N extends EndpointName>(name: N, options: CallOptions<N> = {}): Promise<Answer<ResponseOf<N>>> {
    return this.#send(name, options);
  }

  /**
   * {@link call} with no retry and no gate, written with `then`: what
   * `#send`'s loop does for one attempt, without its async function and
   * awaits (two promises a push).
   */
  #callOnce<N extends EndpointName>(name: N, options: CallOptions<N>): Promise<ResponseOf<N>> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortedError(signal, name));
    const endpoint: Endpoint = ENDPOINTS[name];
    let request: { path: string; body: Buffer | undefined };
    try {
      request = this.#request(name, endpoint, options);
    } catch (error) {
      return Promise.reject(error);
    }
    // Plain literals, no spreads: this runs once per push (see withOptions).
    const attempt = this.#transport.attempt(
      { method: endpoint.method, url: request.path, headers: this.#headers(request.body), body: request.body },
      {
        label: name,
        signal,
        hold: options.hold,
        timeoutMs: options.timeoutMs,
        credentials: endpoint.scope === 'none' ? false : undefined,
        control: options.control,
        spread: options.spread,
        gate: this.#gate,
        retry: options.retry instanceof ServiceHealth ? options.retry : undefined,
      },
    );
    return attempt.then(
      (raw) => {
        if (!isSuccess(raw.status)) throw this.#refused(name, raw, raw.attempts, parseRetryAfter(raw.headers['retry-after']));
        return this.#parseSuccess(name, endpoint, raw) as ResponseOf<N>;
      },
      (caught: unknown) => {
        throw this.#failed(name, caught);
      },
    );
  }

  /** The path and body bytes of a call. */
  #request(name: EndpointName, endpoint: Endpoint, options: CallOptions<EndpointName>, pathOverride?: string): { path: string; body: Buffer | undefined } {
    const path = pathOverride ?? `${this.#prefix}${fillPath(endpoint.path, options.params, name)}${buildQuery(options.query, name)}`;
    const body = options.body === undefined ? undefined : options.json !== undefined ? jsonBytes(options.json, name) : serialiseBody(options.body, name);
    return { path, body };
  }

  /** A success answer parsed, or undefined for any other status (every attempt's answer reached the observer already: the transport's onAnswer). */
  #answered<N extends EndpointName>(name: N, endpoint: Endpoint, raw: TransportAnswer): Answer<ResponseOf<N>> | undefined {
    if (!isSuccess(raw.status)) return undefined;
    return { status: raw.status, headers: raw.headers, data: this.#parseSuccess(name, endpoint, raw) as ResponseOf<N> };
  }

  /** The error for an answer that is not a success and is not retried. */
  #refused(name: EndpointName, raw: TransportAnswer, attempts: number, retryAfterMs: number | undefined): Error {
    return serviceErrorFromResponse({ endpoint: name, status: raw.status, body: this.#errorBody(bodyText(raw.body)), attempts, retryAfterMs });
  }

  /**
   * What the transport threw for a call: its own verdicts (unreachable after
   * every attempt, a refused origin, an answer over the cap, an abort) as
   * they are; anything else is ferry's own failure (a bug, a bad header).
   */
  #failed(name: EndpointName, caught: unknown): unknown {
    if (caught instanceof FerryError) {
      caught.details.endpoint ??= name;
      return caught;
    }
    return new FerryError('FERRY_SERVICE_ERROR', `${name}: request failed: ${this.#redact(messageOf(caught))}`, {
      cause: redactError(caught, this.#secrets()),
      details: { endpoint: name },
    });
  }

  /** `pathOverride` replaces the built path (a poll `Location` the service gave). */
  async #send<N extends EndpointName>(name: N, options: CallOptions<N>, pathOverride?: string): Promise<Answer<ResponseOf<N>>> {
    const endpoint: Endpoint = ENDPOINTS[name];
    const { path, body } = this.#request(name, endpoint, options, pathOverride);
    const { signal } = options;
    const send: SendOptions = {
      label: name,
      retry: options.retry === false ? false : capHints(options.retry === undefined ? this.#retry : mergePolicy(this.#retry, options.retry instanceof ServiceHealth ? options.retry.policy : options.retry)),
      ...(signal ? { signal } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(this.#gate ? { gate: this.#gate } : {}),
      ...(endpoint.scope === 'none' ? { credentials: false as const } : {}),
      ...(options.control ? { control: options.control } : {}),
      ...(options.spread === false ? { spread: false } : {}),
    };
    let raw: TransportAnswer;
    try {
      raw = await this.#transport.send({ method: endpoint.method, url: path, headers: this.#headers(body), ...(body === undefined ? {} : { body }) }, send);
    } catch (caught) {
      throw this.#failed(name, caught);
    }
    const answer = this.#answered<N>(name, endpoint, raw);
    if (answer !== undefined) return answer;
    throw this.#refused(name, raw, raw.attempts, parseRetryAfter(raw.headers['retry-after']));
  }

  /**
   * The headers of a request (the key is added by the transport, on the
   * service's origin only). No `content-length`: undici sends the body's
   * length itself, and one given here is only parsed and checked against it.
   */
  #headers(body: Buffer | undefined): Record<string, string> {
    if (body === undefined) return { accept: 'application/json', 'user-agent': this.#userAgent };
    return { accept: 'application/json', 'user-agent': this.#userAgent, 'content-type': 'application/json' };
  }

  #parseSuccess(name: EndpointName, endpoint: Endpoint, raw: TransportAnswer): unknown {
    let json: unknown;
    const text = bodyText(raw.body);
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new ServiceError('FERRY_SERVICE_ERROR', `${name}: HTTP ${raw.status} answer is not JSON`, {
        endpoint: name,
        status: raw.status,
        body: this.#redact(text.slice(0, 500)),
      });
    }
    // The push answers (201 of a record) pass a check derived from their schema, which is the parse's whole work for them.
    if (fastCheck(endpoint.response)?.(json)) return json;
    // Everything else (list pages: hundreds an export) through the parse compiled from the same schema; zod decides what it cannot.
    const fast = fastParse(endpoint.response)?.(json) ?? NOT_PARSED;
    if (fast !== NOT_PARSED) return fast;
    const parsed = endpoint.response.safeParse(json);
    if (!parsed.success) {
      const summary = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`)
        .join('; ');
      throw new ServiceError(
        'FERRY_SERVICE_ERROR',
        `${name}: HTTP ${raw.status} answer does not match the expected shape: ${this.#redact(summary)}`,
        { endpoint: name, status: raw.status, body: redactValue(json, this.#secrets()) },
        'the service may run a newer interface version than this ferry',
      );
    }
    return parsed.data;
  }

  #errorBody(text: string): unknown {
    if (text === '') return undefined;
    try {
      return redactValue(JSON.parse(text), this.#secrets());
    } catch {
      return this.#redact(text.slice(0, 2000));
    }
  }

  #secrets(): string[] {
    return this.#apiKey === undefined ? [] : [this.#apiKey];
  }

  #redact(text: string): string {
    return redact(text, this.#secrets());
  }

  // ── Pagination ───────────────────────────────────────────────────────────

  /**
   * Every page of a list endpoint, repeating `filters` (and `limit`) on each
   * request and stopping when `hasMore` is false.
   */
  pages<N extends ListEndpointName>(name: N, filters?: FiltersOf<N>, options: RequestOptions = {}): AsyncGenerator<ResponseOf<N>, void, undefined> {
    return paginate(name, (cursor) =>
      this.call(name, { ...options, query: { ...filters, ...(cursor === undefined ? {} : { cursor }) } as QueryOf<N> }),
    );
  }

  /** Every item of a list endpoint, page after page. */
  async *items<N extends ListEndpointName>(name: N, filters?: FiltersOf<N>, options: RequestOptions = {}): AsyncGenerator<ItemOf<N>, void, undefined> {
    const key: string = ENDPOINTS[name].itemsKey;
    for await (const page of this.pages(name, filters, options)) {
      yield* (page as Record<string, unknown>)[key] as ItemOf<N>[];
    }
  }

  // ── Health and ask ───────────────────────────────────────────────────────

  health(options?: RequestOptions): Promise<ResponseOf<'health'>> {
    return this.call('health', { ...options });
  }

  /**
   * Ask one question. The service answers 200 when the run ended within its
   * 60 s window, else 202 with `Location` and `Retry-After`; this follows the
   * polls until the run is completed, failed or stopped (returned as is) or
   * the deadline passes (FERRY_ASK_FAILED).
   */
  async ask(message: string, options: AskOptions = {}): Promise<ResponseOf<'ask'>> {
    const deadlineMs = options.deadlineMs ?? 600_000;
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new Error('ask deadline')), deadlineMs);
    const forward = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    options.signal?.addEventListener('abort', forward, { once: true });
    const started = Date.now();
    const timeoutMs = Math.max(this.#timeoutMs, ASK_WAIT_MS + ASK_TIMEOUT_MARGIN_MS);
    const request = { signal: controller.signal, timeoutMs };
    let last: ResponseOf<'ask'> | undefined;
    try {
      let answer: Answer<ResponseOf<'ask'>> = await this.#send('ask', { ...request, body: { message } });
      last = answer.data;
      while (answer.status === 202 || answer.data.status === 'running') {
        options.onPoll?.(answer.data);
        const hinted = parseRetryAfter(answer.headers['retry-after']);
        await sleep(Math.min(hinted ?? options.pollIntervalMs ?? 5000, this.#retry.maxDelayMs), controller.signal, 'ask');
        const { threadId, runId } = answer.data;
        const location = firstHeader(answer.headers.location);
        const path = location === undefined ? undefined : resolveLocation(location, this.#base, this.#prefix);
        answer = await this.#send('pollAsk', { ...request, params: { threadId, runId } }, path);
        last = answer.data;
      }
      return answer.data;
    } catch (error) {
      if (controller.signal.aborted && !options.signal?.aborted) {
        throw new FerryError('FERRY_ASK_FAILED', `the assistant gave no answer within ${Math.round(deadlineMs / 1000)} s`, {
          hint: 'raise the deadline, or ask a narrower question',
          details: {
            deadlineMs,
            elapsedMs: Date.now() - started,
            ...(last === undefined ? {} : { threadId: last.threadId, runId: last.runId }),
          },
        });
      }
      throw error;
    } finally {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', forward);
    }
  }

  /** One poll of an ask run (the service may hold it up to 60 s); a `running` envelope means not done yet. */
  pollAsk(threadId: string, runId: string, options?: RequestOptions): Promise<ResponseOf<'pollAsk'>> {
    return this.call('pollAsk', {
      timeoutMs: Math.max(this.#timeoutMs, ASK_WAIT_MS + ASK_TIMEOUT_MARGIN_MS),
      ...options,
      params: { threadId, runId },
    });
  }

  // ── Conversations ────────────────────────────────────────────────────────

  listConversations(query?: QueryOf<'listConversations'>, options?: RequestOptions): Promise<ResponseOf<'listConversations'>> {
    return this.call('listConversations', withOptions(options, { query }));
  }
  iterateConversations(filters?: FiltersOf<'listConversations'>, options?: RequestOptions) {
    return this.items('listConversations', filters, options);
  }
  getConversation(conversationId: string, options?: RequestOptions): Promise<ResponseOf<'getConversation'>> {
    return this.call('getConversation', withOptions(options, { params: { conversationId } }));
  }
  createConversation(body: BodyOf<'createConversation'>, options?: RequestOptions): Promise<ResponseOf<'createConversation'>> {
    return this.call('createConversation', withOptions(options, { body }));
  }
  deleteConversation(key: RecordKey, options?: RequestOptions): Promise<ResponseOf<'deleteConversation'>> {
    return this.call('deleteConversation', withOptions(options, { query: key }));
  }

  // ── Deals and accounts ───────────────────────────────────────────────────

  listDeals(query?: QueryOf<'listDeals'>, options?: RequestOptions): Promise<ResponseOf<'listDeals'>> {
    return this.call('listDeals', withOptions(options, { query }));
  }
  iterateDeals(filters?: FiltersOf<'listDeals'>, options?: RequestOptions) {
    return this.items('listDeals', filters, options);
  }
  getDeal(dealId: string, options?: RequestOptions): Promise<ResponseOf<'getDeal'>> {
    return this.call('getDeal', withOptions(options, { params: { dealId } }));
  }

  listAccounts(query?: QueryOf<'listAccounts'>, options?: RequestOptions): Promise<ResponseOf<'listAccounts'>> {
    return this.call('listAccounts', withOptions(options, { query }));
  }
  iterateAccounts(filters?: FiltersOf<'listAccounts'>, options?: RequestOptions) {
    return this.items('listAccounts', filters, options);
  }
  getAccount(accountId: string, options?: RequestOptions): Promise<ResponseOf<'getAccount'>> {
    return this.call('getAccount', withOptions(options, { params: { accountId } }));
  }

  // ── Messages ─────────────────────────────────────────────────────────────

  listMessages(query?: QueryOf<'listMessages'>, options?: RequestOptions): Promise<ResponseOf<'listMessages'>> {
    return this.call('listMessages', withOptions(options, { query }));
  }
  iterateMessages(filters?: FiltersOf<'listMessages'>, options?: RequestOptions) {
    return this.items('listMessages', filters, options);
  }
  getMessage(messageId: string, options?: RequestOptions): Promise<ResponseOf<'getMessage'>> {
    return this.call('getMessage', withOptions(options, { params: { messageId } }));
  }
  createMessage(body: BodyOf<'createMessage'>, options?: RequestOptions): Promise<ResponseOf<'createMessage'>> {
    return this.call('createMessage', withOptions(options, { body }));
  }
  deleteMessage(key: RecordKey, options?: RequestOptions): Promise<ResponseOf<'deleteMessage'>> {
    return this.call('deleteMessage', withOptions(options, { query: key }));
  }

  // ── Rows ─────────────────────────────────────────────────────────────────

  listRows(query?: QueryOf<'listRows'>, options?: RequestOptions): Promise<ResponseOf<'listRows'>> {
    return this.call('listRows', withOptions(options, { query }));
  }
  iterateRows(filters?: FiltersOf<'listRows'>, options?: RequestOptions) {
    return this.items('listRows', filters, options);
  }
  getRow(rowId: string, options?: RequestOptions): Promise<ResponseOf<'getRow'>> {
    return this.call('getRow', withOptions(options, { params: { rowId } }));
  }
  createRow(body: BodyOf<'createRow'>, options?: RequestOptions): Promise<ResponseOf<'createRow'>> {
    return this.call('createRow', withOptions(options, { body }));
  }
  updateRow(key: RecordKey, body: BodyOf<'updateRow'>, options?: RequestOptions): Promise<ResponseOf<'updateRow'>> {
    return this.call('updateRow', withOptions(options, { query: key, body }));
  }
  deleteRow(key: RecordKey, options?: RequestOptions): Promise<ResponseOf<'deleteRow'>> {
    return this.call('deleteRow', withOptions(options, { query: key }));
  }

  // ── Documents ────────────────────────────────────────────────────────────

  listDocuments(query?: QueryOf<'listDocuments'>, options?: RequestOptions): Promise<ResponseOf<'listDocuments'>> {
    return this.call('listDocuments', withOptions(options, { query }));
  }
  iterateDocuments(filters?: FiltersOf<'listDocuments'>, options?: RequestOptions) {
    return this.items('listDocuments', filters, options);
  }
  getDocument(documentId: string, options?: RequestOptions): Promise<ResponseOf<'getDocument'>> {
    return this.call('getDocument', withOptions(options, { params: { documentId } }));
  }
  createDocument(body: BodyOf<'createDocument'>, options?: RequestOptions): Promise<ResponseOf<'createDocument'>> {
    return this.call('createDocument', withOptions(options, { body }));
  }
  updateDocument(key: RecordKey, body: BodyOf<'updateDocument'>, options?: RequestOptions): Promise<ResponseOf<'updateDocument'>> {
    return this.call('updateDocument', withOptions(options, { query: key, body }));
  }
  deleteDocument(key: RecordKey, options?: RequestOptions): Promise<ResponseOf<'deleteDocument'>> {
    return this.call('deleteDocument', withOptions(options, { query: key }));
  }

  // ── Sources ──────────────────────────────────────────────────────────────

  createSource(body: BodyOf<'createSource'>, options?: RequestOptions): Promise<ResponseOf<'createSource'>> {
    return this.call('createSource', withOptions(options, { body }));
  }
  listSources(query?: QueryOf<'listSources'>, options?: RequestOptions): Promise<ResponseOf<'listSources'>> {
    return this.call('listSources', withOptions(options, { query }));
  }
  getSource(sourceId: string, options?: RequestOptions): Promise<ResponseOf<'getSource'>> {
    return this.call('getSource', withOptions(options, { params: { sourceId } }));
  }
  updateSource(sourceId: string, body: BodyOf<'updateSource'>, options?: RequestOptions): Promise<ResponseOf<'updateSource'>> {
    return this.call('updateSource', withOptions(options, { params: { sourceId }, body }));
  }
  deleteSource(sourceId: string, options?: RequestOptions): Promise<ResponseOf<'deleteSource'>> {
    return this.call('deleteSource', withOptions(options, { params: { sourceId } }));
  }

  // ── Object types ─────────────────────────────────────────────────────────

  createObjectType(body: BodyOf<'createObjectType'>, options?: RequestOptions): Promise<ResponseOf<'createObjectType'>> {
    return this.call('createObjectType', withOptions(options, { body }));
  }
  listObjectTypes(query?: QueryOf<'listObjectTypes'>, options?: RequestOptions): Promise<ResponseOf<'listObjectTypes'>> {
    return this.call('listObjectTypes', withOptions(options, { query }));
  }
  getObjectType(objectTypeId: string, options?: RequestOptions): Promise<ResponseOf<'getObjectType'>> {
    return this.call('getObjectType', withOptions(options, { params: { objectTypeId } }));
  }
  updateObjectType(objectTypeId: string, body: BodyOf<'updateObjectType'>, options?: RequestOptions): Promise<ResponseOf<'updateObjectType'>> {
    return this.call('updateObjectType', withOptions(options, { params: { objectTypeId }, body }));
  }
  deleteObjectType(objectTypeId: string, options?: RequestOptions): Promise<ResponseOf<'deleteObjectType'>> {
    return this.call('deleteObjectType', withOptions(options, { params: { objectTypeId } }));
  }

  // ── Lifecycle and display ────────────────────────────────────────────────

  /** Close the connection pool (a dispatcher passed in options belongs to the caller and stays open). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** What logs and `JSON.stringify` show: never the key. */
  toJSON(): Record<string, unknown> {
    return {
      baseUrl: this.baseUrl,
      apiKey: this.#apiKey === undefined ? undefined : REDACTED,
      concurrency: this.#concurrency,
      timeoutMs: this.#timeoutMs,
      retry: this.#retry,
    };
  }

  [inspect.custom](): string {
    return `ServiceClient ${inspect(this.toJSON())}`;
  }
}

/**
 * `{ ...options, ...extra }`. Written with Object.assign because on Node 20 a
 * spread with properties beside it is not optimised, and the push methods
 * build one per record (docs/performance.md).
 */
function withOptions<O extends object, E extends object>(options: O | undefined, extra: E): O & E {
  return Object.assign({}, options, extra);
}

/**
 * The client's observer fed from the transport's hooks: every answer (with
 * its latency) and every retry, labelled with the endpoint's name. A
 * request that got no answer reaches `onRetry` only, as before.
 */
function transportObserver(observer: ClientObserver): TransportObserver {
  const { onResponse, onRetry } = observer;
  return {
    ...(onResponse
      ? {
          onAnswer: (event) => {
            if (event.status !== null) onResponse.call(observer, { endpoint: event.label as EndpointName, status: event.status, durationMs: event.latencyMs, attempt: event.attempt });
          },
        }
      : {}),
    ...(onRetry
      ? {
          onRetry: (event) =>
            onRetry.call(observer, {
              endpoint: event.label as EndpointName,
              attempt: event.attempt,
              delayMs: event.delayMs,
              ...(event.status === undefined ? {} : { status: event.status }),
              ...(event.errorCode === undefined ? {} : { errorCode: event.errorCode }),
              ...(event.retryAfterMs === undefined ? {} : { retryAfterMs: event.retryAfterMs }),
            }),
        }
      : {}),
  };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function dataOf<T>(answer: Answer<T>): T {
  return answer.data;
}

/** `derive(schema)` once per schema (null: it gave none), remembered for the schema's life. */
function oncePerSchema<T>(derive: (schema: z.ZodType) => T | undefined): (schema: z.ZodType) => T | null {
  const derived = new WeakMap<z.ZodType, T | null>();
  return (schema) => {
    let value = derived.get(schema);
    if (value === undefined) {
      value = derive(schema) ?? null;
      derived.set(schema, value);
    }
    return value;
  };
}

/** Each response schema's fast check (or null: none). */
const fastCheck = oncePerSchema<FastCheck>(fastCheckOf);

/** Each response schema's compiled parse (or null: none). */
const fastParse = oncePerSchema<FastParse>(fastParseOf);

/** The client caps every wait, Retry-After included, at maxDelayMs unless told otherwise (docs/client.md). */
function capHints(policy: Readonly<RetryPolicy>): RetryPolicy {
  return { ...policy, maxRetryAfterMs: policy.maxRetryAfterMs ?? policy.maxDelayMs };
}

function mergePolicy(base: Readonly<RetryPolicy>, override: Partial<RetryPolicy> | undefined): RetryPolicy {
  const merged = { ...base };
  if (override?.maxAttempts !== undefined) merged.maxAttempts = positiveInt(override.maxAttempts, base.maxAttempts, 'retry.maxAttempts');
  if (override?.baseDelayMs !== undefined) merged.baseDelayMs = nonNegative(override.baseDelayMs, 'retry.baseDelayMs');
  if (override?.maxDelayMs !== undefined) merged.maxDelayMs = nonNegative(override.maxDelayMs, 'retry.maxDelayMs');
  for (const key of ['minDelayMs', 'maxRetryAfterMs', 'outageBudgetMs'] as const) {
    const value = override?.[key];
    if (value !== undefined) merged[key] = nonNegative(value, `retry.${key}`);
  }
  return merged;
}

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new FerryError('FERRY_CONFIG_INVALID', `${name} must be a positive integer, found ${value}`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new FerryError('FERRY_CONFIG_INVALID', `${name} must be a number ≥ 0, found ${value}`);
  return value;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Pushes mapped records to the service: bounded queues so a fast reader
 * cannot pile up bodies in memory, records of one key sent one after the
 * other in the order pushed (a retried older version never lands last), the
 * counts, and what a record's final outcome means for the run (a rejection
 * for the dead-letter, or a stop).
 *
 * Everything about one request is the request path's (src/sdk/transport):
 * the transport's attempt loop retries under this push's retry policy and the
 * service's health that all its requests share (service-health.ts: the outage
 * budget, the streak rule, 429s, Retry-After), and every attempt is admitted by
 * this push's RequestControl (control/: the adaptive concurrency and rate,
 * bounded by `concurrency` and `maxRequestsPerSecond` when set). A record
 * waiting to retry holds no request slot: other records go meanwhile, so 429s
 * and 5xx that do not grow with the rate do not stop the world; the pusher
 * only counts those waits, to hold the reader when too many pile up.
 */
import { setMaxListeners } from 'node:events';
import { FerryError } from '../sdk/errors.js';
import { classifyFailure } from '../sdk/http-retry.js';
import type { ConnectorLogger } from '../sdk/types.js';
import type {
  ConversationRequest,
  DocumentRequest,
  MessageRequest,
  RowRequest,
} from '../api/schemas/write.js';
import type { DeletedRecordResponse, RecordResponse } from '../api/schemas/read.js';
import { monotonicClock, systemClock } from '../sdk/clock.js';
import type { Clock } from '../sdk/clock.js';
import { abortedError } from '../sdk/http-retry.js';
import { CONCURRENCY_CAP } from '../sdk/transport/control/concurrency-limit.js';
import type { ConcurrencyReason } from '../sdk/transport/control/concurrency-limit.js';
import { RequestControl } from '../sdk/transport/control/request-control.js';
import { ServiceHealth } from '../sdk/transport/service-health.js';
import type { RateShare } from '../sdk/transport/control/rate-share.js';
import type { LearntLimits, RateReason } from '../sdk/transport/control/request-control.js';
import { errorBodyOf, rejectionReason } from './service-port.js';
import type { RecordKind, SinkCallOptions, SinkService } from './service-port.js';

export type SinkLogger = Pick<ConnectorLogger, 'debug' | 'info' | 'warn'>;

export interface PushJob {
  kind: RecordKind;
  /** The record's caller id (`body.id`), for logs. */
  remoteId: string;
  /** The mapped request body, already validated against the endpoint's schema. */
  body: Record<string, unknown>;
  /** `body` as JSON, when the caller made it already (its canonical JSON, for the fingerprint): sent as is, not serialised again. */
  json?: string;
}

export interface DeleteJob {
  kind: RecordKind;
  remoteId: string;
  sourceId: string;
}

/** A permanent refusal: what goes into the dead-letter. */
export interface PushRejection {
  ok: false;
  permanent: true;
  /** HTTP status, or null when the request was refused before sending (body over 10 MB). */
  status: number | null;
  /** `<status> <error>: <message> (field <field>, request <request_id>)`. */
  reason: string;
  /** The service's error body as received. */
  errorBody: unknown;
}

export type PushOutcome = { ok: true; recordId: string; status: 'created' | 'updated' } | PushRejection;

/** `absent`: the service had no such record (404); for a delete that is the wanted end state. */
export type DeleteOutcome = { ok: true; status: 'deleted' | 'absent'; recordId?: string } | PushRejection;

export interface PusherStats {
  /** HTTP requests sent (every attempt counts). */
  requests: number;
  retries: number;
  /** 429 answers received. */
  throttled: number;
  succeeded: number;
  rejected: number;
  /** The adaptive rate now, requests per second. */
  currentRate: number;
  /** Why the rate is not higher: the service's 429s, the configured bound, or nothing yet (it does not bind). */
  rateReason: RateReason;
  /** The adaptive concurrency limit now: requests that may be in flight. */
  concurrency: number;
  /** Why the concurrency is not higher (see ConcurrencyReason). */
  concurrencyReason: ConcurrencyReason;
  /** The most requests that were in flight at once. */
  peakInFlight: number;
  /** The service's round trip without load as found, ms (undefined before the first answer). */
  noLoadRoundTripMs: number | undefined;
  /** Requests in flight now (sent, not answered). */
  inFlight: number;
  queued: number;
  /** Records waiting for their next attempt (Retry-After or backoff). */
  waitingToRetry: number;
  /** The configured rate bound, requests per second (undefined: none, the service's limit is found). */
  ceiling: number | undefined;
  /** The configured concurrency bound (undefined: none, up to the cap of 256). */
  concurrencyBound: number | undefined;
  /** Requests that waited for their turn while the rate stood at the ceiling: the ceiling, not the service, set their pace. */
  heldByCeiling: number;
}

export type { LearntLimits, RateReason };

/** The concurrency and rate a push settled on, and why neither is higher: the summary's, `--json`'s and the metrics'. */
export interface PushLimits {
  concurrency: number;
  concurrencyReason: ConcurrencyReason;
  /** The most requests that were in flight at once. */
  peakInFlight: number;
  /** Requests per second the rate allows now (absent while it has found no limit and has no bound: it does not pace). */
  rate?: number;
  rateReason: RateReason;
}

/** {@link PushLimits} from the pusher's stats. */
export function pushLimits(stats: PusherStats): PushLimits {
  const paces = stats.rateReason !== 'unlimited';
  return {
    concurrency: stats.concurrency,
    concurrencyReason: stats.concurrencyReason,
    peakInFlight: stats.peakInFlight,
    ...(paces ? { rate: Math.round(stats.currentRate * 10) / 10 } : {}),
    rateReason: stats.rateReason,
  };
}

/** Why the limits are not higher, in words (the summary and the progress line). */
export function describeLimits(limits: PushLimits): string {
  const concurrency = `${limits.concurrency} in flight (${CONCURRENCY_WHY[limits.concurrencyReason]})`;
  const rate = limits.rate === undefined ? 'no rate limit found' : `${limits.rate} requests/s (${RATE_WHY[limits.rateReason]})`;
  return `${concurrency}, ${rate}`;
}

const CONCURRENCY_WHY: Record<ConcurrencyReason, string> = {
  growing: 'still growing',
  latency: 'latency rises past it',
  throttled: 'the rate binds: 429s',
  overloaded: 'the service answered 503',
  saturated: 'more brought no more throughput',
  bound: 'the configured bound',
  client: 'ferry sent no more',
};

const RATE_WHY: Record<RateReason, string> = {
  throttled: "just under the service's 429s",
  bound: 'the configured bound',
  unlimited: 'no limit found',
};


export interface PusherOptions {
  service: SinkService;
  /** Upper bound of the adaptive concurrency (service.concurrency). @default 256 */
  concurrency?: number;
  /** Upper bound of the adaptive rate (service.maxRequestsPerSecond). @default none */
  maxRequestsPerSecond?: number;
  /** What an earlier run learnt: the limits start there instead of the cold defaults. */
  learnt?: LearntLimits;
  /** What processes sharing the API key learn together (RequestControlOptions.share). */
  share?: RateShare;
  /** Lowest rate 429s can push the adaptive limit to. @default 0.5 */
  minRequestsPerSecond?: number;
  /** Failed attempts per record before it gives up (429s do not count unless the service is down). */
  maxAttempts: number;
  /** Keep retrying while the whole service has been down for less than this. @default 0 */
  outageBudgetMs?: number;
  logger: SinkLogger;
  /** Aborts every wait (queue, rate limit, backoff); requests already sent finish. */
  signal?: AbortSignal;
  /** Injectable sleep; defaults to the clock's. Tests record it. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Wall clock for Retry-After dates, and (when given) the rate limiter's clock too; tests pass a virtual one. */
  clock?: Clock;
  /** [0, 1) source for jitter. @default Math.random */
  random?: () => number;
  /** Backoff and Retry-After bounds; the defaults are the SDK's DEFAULT_RETRY. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  minDelayMs?: number;
  maxRetryAfterMs?: number;
  /** Records waiting for a first request slot before `waitForCapacity` holds the reader. @default concurrency × 4 */
  maxQueued?: number;
  /** Records waiting to retry before `waitForCapacity` holds the reader. @default max(2000, concurrency × 128) */
  maxWaitingToRetry?: number;
  /** Window sizes of the rate controller (tests use small ones). */
  rateWindow?: { minWindowMs?: number; minWindowAnswers?: number };
}

/** A record's request, with every attempt the transport makes of it. */
type Call<T> = () => Promise<T>;
type Job = { kind: RecordKind; remoteId: string };
export class Pusher {
  private readonly service: SinkService;
  /** Admits every attempt on the request path: adaptive concurrency and rate (see the module comment). */
  readonly control: RequestControl;
  private readonly clock: Clock;
  private readonly logger: SinkLogger;
  private readonly signal: AbortSignal | undefined;
  /** The retry policy and the service's health, shared by every request of this push; the transport retries by it. */
  private readonly health: ServiceHealth;
  private readonly fixedMaxQueued: number | undefined;
  private readonly maxWaitingToRetry: number;

  private fatal: FerryError | undefined;
  /**
   * Aborted once the pusher stops (a fatal error, or the run's signal): records
   * waiting for the service's outage breaker leave instead of going out one by
   * one as probes. Requests already sent are not cut: they finish.
   */
  private readonly halt = new AbortController();
  /** The options of every push and delete, made once. */
  private readonly callOptions: SinkCallOptions;
  /** `signal.aborted`, kept by the abort event. */
  private aborted: boolean;
  private readonly counters = { requests: 0, retries: 0, throttled: 0, succeeded: 0, rejected: 0 };
  /** Records pushed and not settled; of those, waiting to retry. */
  private unsettled = 0;
  private waitingToRetry = 0;
  private readonly changed = new Set<() => void>();
  /** Callers of {@link waitForCapacity} waiting for room (see {@link wakeRoomWaiters}). */
  private roomWaiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** The last pending push of each key, so that pushes of one key go in order. */
  private readonly tails: Record<RecordKind, Map<string, Promise<unknown>>> = {
    conversation: new Map(),
    message: new Map(),
    row: new Map(),
    document: new Map(),
  };

  constructor(options: PusherOptions) {
    if (options.concurrency !== undefined && !(options.concurrency >= 1)) {
      throw new FerryError('FERRY_CONFIG_INVALID', `concurrency must be at least 1, found ${options.concurrency}`);
    }
    if (options.maxRequestsPerSecond !== undefined && !(options.maxRequestsPerSecond > 0)) {
      throw new FerryError('FERRY_CONFIG_INVALID', `maxRequestsPerSecond must be positive, found ${options.maxRequestsPerSecond}`);
    }
    this.service = options.service;
    this.clock = options.clock ?? systemClock;
    const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => this.clock.sleep(ms, signal));
    this.logger = options.logger;
    this.signal = options.signal;
    // Waits and requests listen through onAbort (one listener on the signal); the run's other parts add a few more, and
    // a caller's own listeners on the same signal must not set off Node's warning at 10.
    if (options.signal) setMaxListeners(0, options.signal);
    this.aborted = options.signal?.aborted ?? false;
    options.signal?.addEventListener(
      'abort',
      () => {
        this.aborted = true;
        this.halt.abort(options.signal?.reason);
        this.notify();
      },
      { once: true },
    );
    // A virtual clock in tests paces the control too; in production it runs on the monotonic clock.
    const controlClock = options.clock || options.sleep ? { now: () => this.clock.now(), sleep } : monotonicClock;
    this.control = new RequestControl({
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.maxRequestsPerSecond === undefined ? {} : { maxRequestsPerSecond: options.maxRequestsPerSecond }),
      ...(options.learnt ? { learnt: options.learnt } : {}),
      ...(options.share ? { share: options.share } : {}),
      ...(options.minRequestsPerSecond === undefined ? {} : { minRequestsPerSecond: options.minRequestsPerSecond }),
      ...(options.rateWindow ? { rateWindow: options.rateWindow } : {}),
      clock: controlClock,
      onRateChange: (decision, retryAfterMs) =>
        this.logger.debug({ rate: Math.round(decision.rate * 10) / 10, change: decision.change, retryAfterMs }, 'push rate changed'),
    });
    this.health = new ServiceHealth({
      policy: {
        maxAttempts: Math.max(1, options.maxAttempts),
        outageBudgetMs: options.outageBudgetMs ?? 0,
        ...definedOnly({ baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs, minDelayMs: options.minDelayMs, maxRetryAfterMs: options.maxRetryAfterMs }),
      },
      now: () => this.clock.now(),
      sleep,
      random: options.random ?? Math.random,
      logger: this.logger,
      hooks: {
        onAttempt: () => {
          this.counters.requests += 1;
        },
        onThrottled: () => {
          this.counters.throttled += 1;
        },
        onRetryWait: () => {
          this.counters.retries += 1;
          this.waitingToRetry++;
        },
        onRetryWaitEnd: () => {
          this.waitingToRetry--;
          this.notify();
        },
      },
    });
    this.callOptions = { retry: this.health, hold: this.halt.signal, control: this.control };
    const cap = options.concurrency ?? CONCURRENCY_CAP;
    this.fixedMaxQueued = options.maxQueued;
    // Room for a second of Retry-After waits when a tenth of 20k records/s is refused (~2 MB of bodies), so that
    // 429s that do not grow with the rate do not hold the reader; still bounded against a service refusing everything.
    this.maxWaitingToRetry = options.maxWaitingToRetry ?? Math.max(2000, Math.min(cap, 64) * 128);
  }

  /** Upsert one record. Resolves with its outcome; rejects only on run-fatal errors (auth, service gone, abort). */
  push(job: PushJob): Promise<PushOutcome> {
    return this.enqueue(job, () => this.send(job), (r) => ({ ok: true, recordId: r.recordId, status: r.status }));
  }

  /** Soft-delete one record (for `deletes: mirror`). A 404 counts as already deleted. */
  delete(job: DeleteJob): Promise<DeleteOutcome> {
    const query = { remoteId: job.remoteId, sourceId: job.sourceId };
    const opts = this.callOptions;
    const call = (): Promise<DeletedRecordResponse> => {
      switch (job.kind) {
        case 'conversation': return this.service.deleteConversation(query, opts);
        case 'message': return this.service.deleteMessage(query, opts);
        case 'row': return this.service.deleteRow(query, opts);
        case 'document': return this.service.deleteDocument(query, opts);
      }
    };
    return this.enqueue<DeletedRecordResponse, DeleteOutcome>(
      job,
      call,
      (r) => ({ ok: true, status: 'deleted', recordId: r.recordId }),
      (rejection) => (rejection.status === 404 ? { ok: true, status: 'absent' } : rejection),
    );
  }

  /**
   * Undefined while fewer than `maxQueued` records wait for a first request
   * slot and fewer than `maxWaitingToRetry` wait to retry; else a promise
   * that resolves once there is room again (see {@link wakeRoomWaiters}),
   * or rejects when the run is aborted. Await it before each `push`.
   */
  waitForCapacity(): Promise<void> | undefined {
    // Without a promise when there is room: once per record.
    if (this.queued < this.maxQueued && this.waitingToRetry < this.maxWaitingToRetry) return undefined;
    if (this.aborted) return Promise.reject(abortedError(this.signal, 'waiting for push capacity'));
    if (this.fatal) return undefined;
    return new Promise((resolve, reject) => this.roomWaiters.push({ resolve, reject }));
  }

  /**
   * Those waiting for capacity go once the queue has drained to half (and
   * the retries are below their bound), or the run stops: one wake-up lets
   * a stretch of records in, where waking at every slot let one in per
   * record (three promises each; the queue still holds twice the slots).
   */
  private wakeRoomWaiters(): void {
    const waiters = this.roomWaiters;
    if (waiters.length === 0) return;
    const stopping = this.aborted || this.fatal !== undefined;
    if (!stopping && (this.queued > this.maxQueued / 2 || this.waitingToRetry >= this.maxWaitingToRetry)) return;
    this.roomWaiters = [];
    for (const waiter of waiters) {
      if (this.aborted) waiter.reject(abortedError(this.signal, 'waiting for push capacity'));
      else waiter.resolve();
    }
  }

  /**
   * The caller has read its source to the end (what it still pushes is
   * the last of it): the rate stops probing past the service's limit, so
   * that a 429 does not hold the run's end for a whole Retry-After.
   */
  endOfInput(): void {
    this.control.finish();
  }

  /** Resolves when nothing is queued, in flight or waiting to retry. */
  async onIdle(): Promise<void> {
    while (this.unsettled > 0) await this.nextChange();
  }

  /** Records waiting for a first request slot before `waitForCapacity` holds the reader: four per request the limit allows now. */
  get maxQueued(): number {
    return this.fixedMaxQueued ?? Math.max(16, this.control.concurrency * 4);
  }

  /** Records waiting for their turn (their key's, or a request slot): neither in flight nor waiting to retry. */
  private get queued(): number {
    return Math.max(0, this.unsettled - this.waitingToRetry - this.control.inFlight);
  }

  stats(): PusherStats {
    const control = this.control.stats();
    return {
      ...this.counters,
      currentRate: control.rate,
      rateReason: control.rateReason,
      concurrency: control.concurrency,
      concurrencyReason: control.concurrencyReason,
      concurrencyBound: control.concurrencyBound,
      peakInFlight: control.peakInFlight,
      noLoadRoundTripMs: control.noLoadRoundTripMs,
      ceiling: control.rateBound,
      heldByCeiling: control.heldByCeiling,
      inFlight: control.inFlight,
      queued: this.queued,
      waitingToRetry: this.waitingToRetry,
    };
  }

  private send(job: PushJob): Promise<RecordResponse> {
    const opts: SinkCallOptions = job.json === undefined ? this.callOptions : { retry: this.health, hold: this.halt.signal, control: this.control, json: job.json };
    // The mapper validated the body against this endpoint's schema; the port takes the typed shape.
    switch (job.kind) {
      case 'conversation': return this.service.createConversation(job.body as ConversationRequest, opts);
      case 'message': return this.service.createMessage(job.body as MessageRequest, opts);
      case 'row': return this.service.createRow(job.body as RowRequest, opts);
      case 'document': return this.service.createDocument(job.body as DocumentRequest, opts);
    }
  }

  private enqueue<R, O>(
    job: Job,
    call: Call<R>,
    onOk: (response: R) => O,
    onRejected: (rejection: PushRejection) => O | PushRejection = (r) => r,
  ): Promise<O | PushRejection> {
    if (this.fatal) return Promise.reject(this.fatal);
    this.unsettled++;
    // One map per kind, keyed by the id itself: no key string to build and hash per record.
    const tails = this.tails[job.kind];
    const before = tails.get(job.remoteId);
    // A push of the key waits for the one before to settle, either way (that one's rejection is handled by its own caller).
    const result = before
      ? before.then(
          () => this.run(job, call, onOk, onRejected),
          () => this.run(job, call, onOk, onRejected),
        )
      : this.run(job, call, onOk, onRejected);
    tails.set(job.remoteId, result);
    const settled = (): void => {
      if (tails.get(job.remoteId) === result) tails.delete(job.remoteId);
      this.unsettled--;
      this.notify();
    };
    // `then` with both handlers, not an async function or `finally`: one promise a record, not two or three.
    return result.then(
      (outcome) => {
        settled();
        return outcome;
      },
      (error: unknown) => {
        settled();
        throw error;
      },
    );
  }

  /**
   * The record's request, every attempt of it the transport's (see the module
   * comment), and what its final outcome means: a success; a permanent
   * refusal, for the dead-letter; or a stop of the whole push — the API key
   * refused, or the attempts spent on a transient failure. Written with
   * `then` rather than as an async function: one promise per record.
   */
  private run<R, O>(
    job: Job,
    call: Call<R>,
    onOk: (response: R) => O,
    onRejected: (rejection: PushRejection) => O | PushRejection,
  ): Promise<O | PushRejection> {
    let sending: Promise<R>;
    try {
      this.checkStopped(job);
      sending = call();
    } catch (error) {
      if (this.fatal || this.aborted) return Promise.reject(error);
      sending = Promise.reject(error);
    }
    return sending.then(
      (response) => {
        this.counters.succeeded += 1;
        return onOk(response);
      },
      (error: unknown) => onRejected(this.finalFailure(job, error)),
    );
  }

  /** A record's final failure: the rejection to dead-letter, or throws what stops the push. */
  private finalFailure(job: Job, error: unknown): PushRejection {
    // Stopped meanwhile (a wait for a slot, the breaker or a retry was cut): the reason it stopped, not the cut wait.
    if (this.fatal) throw this.fatal;
    const failure = classifyFailure(error, this.clock.now());
    switch (failure.kind) {
      case 'fatal':
        throw error;
      case 'auth':
        throw this.setFatal(authError(job, failure.status, error));
      case 'permanent':
        return this.rejected(job, failure.status, error);
      case 'transient':
        // The transport gave up on it: its attempts, or the outage budget, are spent.
        throw this.setFatal(exhausted(job, failure.status, attemptsOf(error), error));
    }
  }

  private rejected(job: Job, status: number | null, error: unknown): PushRejection {
    this.counters.rejected += 1;
    const rejection: PushRejection = { ok: false, permanent: true, status, reason: rejectionReason(status, error), errorBody: errorBodyOf(error) ?? null };
    this.logger.debug({ kind: job.kind, remoteId: job.remoteId, status, reason: rejection.reason }, 'record rejected');
    return rejection;
  }

  private nextChange(): Promise<void> {
    return new Promise((resolve) => this.changed.add(resolve));
  }

  private notify(): void {
    this.wakeRoomWaiters();
    if (this.changed.size === 0) return;
    const waiting = [...this.changed];
    this.changed.clear();
    for (const resolve of waiting) resolve();
  }

  private checkStopped(job: Job): void {
    if (this.fatal) throw this.fatal;
    // Read from a flag set by the abort event (twice per attempt; AbortSignal's getter is not free).
    if (this.aborted) throw abortedError(this.signal, `pushing ${job.kind} ${JSON.stringify(job.remoteId)}`);
  }

  private setFatal(error: FerryError): FerryError {
    this.fatal ??= error;
    this.halt.abort(error);
    this.notify();
    return error;
  }
}

function definedOnly<T extends Record<string, number | undefined>>(values: T): Partial<Record<keyof T, number>> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<Record<keyof T, number>>;
}

/** Attempts a request took, as the transport's error says (`details.attempts`; a stand-in's `attempts`). */
function attemptsOf(error: unknown): number {
  const { attempts, details } = (typeof error === 'object' && error !== null ? error : {}) as { attempts?: unknown; details?: { attempts?: unknown } };
  if (typeof attempts === 'number') return attempts;
  if (typeof details?.attempts === 'number') return details.attempts;
  return 1;
}

function authError(job: Job, status: number, cause: unknown): FerryError {
  return new FerryError('FERRY_SERVICE_AUTH', `the service refused the API key (HTTP ${status}) while pushing ${job.kind} ${JSON.stringify(job.remoteId)}`, {
    cause,
    details: { status, kind: job.kind, remoteId: job.remoteId },
    hint: status === 401
      ? 'the API key is invalid or revoked; set service.apiKey to a valid key'
      : 'the API key lacks the ingest scope; give it the Import permission',
  });
}

function exhausted(job: Job, status: number | null, attempts: number, cause: unknown): FerryError {
  const what = `${job.kind} ${JSON.stringify(job.remoteId)}`;
  if (status === null) {
    return new FerryError('FERRY_SERVICE_UNREACHABLE', `the service could not be reached after ${attempts} attempts (pushing ${what})`, {
      cause,
      details: { attempts, kind: job.kind, remoteId: job.remoteId },
      hint: 'check service.baseUrl and the network; acknowledged records are checkpointed, rerun to continue',
    });
  }
  return new FerryError('FERRY_SERVICE_ERROR', `the service kept answering HTTP ${status} after ${attempts} attempts (pushing ${what})`, {
    cause,
    details: { status, attempts, kind: job.kind, remoteId: job.remoteId },
    hint: status === 429
      ? 'the service kept rate-limiting; lower service.maxRequestsPerSecond or concurrency'
      : 'the service kept failing; try again later (acknowledged records are checkpointed)',
  });
}


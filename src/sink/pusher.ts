/**
 * Pushes mapped records to the service: as many requests in flight as the
 * adaptive concurrency limit finds the service serves without queueing
 * (src/sink/concurrency-limit.ts; `concurrency`, when set, bounds it), paced
 * by an adaptive rate limit that finds what the service accepts (bounded by
 * `maxRequestsPerSecond` when set), retried by the SDK's retry policy,
 * with bounded queues so a fast reader cannot pile up bodies in memory.
 *
 * A record waiting to retry (Retry-After, backoff) holds no request slot:
 * other records go meanwhile, so 429s and 5xx that do not grow with the rate
 * do not stop the world. Records with the same key are sent one after the
 * other, in the order pushed, so a retried older version never lands last.
 *
 * Every call goes out with `retry: false`: attempts are never multiplied by
 * a second retry loop underneath, and every answer reaches the rate control.
 */
import { setMaxListeners } from 'node:events';
import { FerryError } from '../sdk/errors.js';
import { DEFAULT_RETRY, classifyFailure, nextRetry, signalsOutage } from '../sdk/http-retry.js';
import type { RetryPolicy } from '../sdk/http-retry.js';
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
import { CONCURRENCY_CAP, ConcurrencyLimit, INITIAL_CONCURRENCY } from './concurrency-limit.js';
import type { ConcurrencyReason } from './concurrency-limit.js';
import { AdaptiveRateLimiter } from './rate-limiter.js';
import type { RateDecision } from './rate-controller.js';
import { errorBodyOf, rejectionReason, statusOf } from './service-port.js';
import { Slots } from './slots.js';
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

/** Why the rate is not higher. */
export type RateReason =
  /** The service answered 429 above it: its limit, as found. */
  | 'throttled'
  /** `maxRequestsPerSecond` held requests back. */
  | 'bound'
  /** No limit found, and the rate does not bind: something else sets the pace. */
  | 'unlimited';

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

/** What a run learnt of the service, to start the next one near it (`ferry status` shows it). */
export interface LearntLimits {
  concurrency: number;
  /** Requests per second the service accepted, when it showed a limit (429s). */
  rate?: number;
}

export interface PusherOptions {
  service: SinkService;
  /** Upper bound of the adaptive concurrency (service.concurrency). @default 256 */
  concurrency?: number;
  /** Upper bound of the adaptive rate (service.maxRequestsPerSecond). @default none */
  maxRequestsPerSecond?: number;
  /** What an earlier run learnt: the limits start there instead of the cold defaults. */
  learnt?: LearntLimits;
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

type Attempt<T> = () => Promise<T>;
/** What one attempt came to, and when its request went. */
type Attempted<R> = { ok: true; response: R; sentAt: number; inFlight: number } | { ok: false; error: unknown; sentAt: number; inFlight: number };
type Job = { kind: RecordKind; remoteId: string };
/** How often a service that stays down is reported while the run rides it out. */
const OUTAGE_LOG_INTERVAL_MS = 30_000;
/** A few seconds without success are ordinary retries, not yet an outage worth a warning. */
const OUTAGE_REPORT_AFTER_MS = 5_000;
/**
 * While the service serves other requests, a record gives up only on a
 * streak of transient failures that the service's own share of them would
 * produce less often than this (see Pusher.attemptsWhileServing).
 */
const UNLIKELY_STREAK = 1e-9;
/** The most attempts that rule gives a record (the most `maxAttempts` may be set to). */
const MAX_ATTEMPTS_WHILE_SERVING = 20;
/** Answers the transient-failure share is averaged over (an exponential moving average past the first ones). */
const SHARE_MEMORY = 2000;
/**
 * The slow start begins at this many requests per second per request slot
 * (what the slots allow against a service answering in 25 ms), but at least
 * START_LEAST, and doubles every ~35 ms from there while the rate binds: a
 * fast service loses a fraction of a second, a rate-limited one is not sprayed.
 * Before the first answers, the slots bound what goes out whatever the rate
 * (concurrency requests per round trip), so a higher start adds at most a few
 * 429s at a limited service: 10 per slot cost c64 at 20 ms about 1 % of a
 * ten-second run, 40 adds 3-9 429s against a 100 req/s bucket at c16.
 */
const START_PER_SLOT = 40;
const START_LEAST = 50;
/**
 * The rate controller's ceiling without `maxRequestsPerSecond`: a number
 * (the token bucket's burst is a share of the rate), far above anything one
 * process sends; the slow start grows only while the rate binds, so it is
 * never reached by growth alone.
 */
const UNBOUNDED_RATE = 100_000;

export class Pusher {
  private readonly service: SinkService;
  private readonly slots: Slots;
  private readonly concurrencyLimit: ConcurrencyLimit;
  private readonly concurrencyBound: number | undefined;
  private readonly rateBound: number | undefined;
  /** Requests sent and not answered, and the most there were at once. */
  private sentInFlight = 0;
  private peakInFlight = 0;
  private readonly limiter: AdaptiveRateLimiter;
  private readonly clock: Clock;
  private readonly sleepFn: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly logger: SinkLogger;
  private readonly signal: AbortSignal | undefined;
  private readonly policy: RetryPolicy;
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
  /** Records pushed and not settled; of those, waiting for their first slot; and waiting to retry. */
  private unsettled = 0;
  private queued = 0;
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
  /** When the service last answered a request with something other than a transient failure. */
  private lastAnswerAt: number;
  private outageLoggedAt = Number.NEGATIVE_INFINITY;
  /** Share of the service's recent answers (429s aside) that were transient failures: 5xx, 408, 409, network errors. */
  private transientShare = 0;
  private answersSeen = 0;

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
    this.sleepFn = sleep;
    this.random = options.random ?? Math.random;
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
    this.callOptions = { retry: false, hold: this.halt.signal };
    this.policy = {
      ...DEFAULT_RETRY,
      maxAttempts: Math.max(1, options.maxAttempts),
      outageBudgetMs: options.outageBudgetMs ?? 0,
      ...definedOnly({ baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs, minDelayMs: options.minDelayMs, maxRetryAfterMs: options.maxRetryAfterMs }),
    };
    this.concurrencyBound = options.concurrency;
    this.rateBound = options.maxRequestsPerSecond;
    const cap = options.concurrency ?? CONCURRENCY_CAP;
    this.fixedMaxQueued = options.maxQueued;
    // Room for a second of Retry-After waits when a tenth of 20k records/s is refused (~2 MB of bodies), so that
    // 429s that do not grow with the rate do not hold the reader; still bounded against a service refusing everything.
    this.maxWaitingToRetry = options.maxWaitingToRetry ?? Math.max(2000, Math.min(cap, 64) * 128);
    // A virtual clock in tests paces the limiter too; in production it runs on the monotonic clock.
    const limiterClock = options.clock || options.sleep ? { now: () => this.clock.now(), sleep } : monotonicClock;
    // Where a run starts: near what the last one learnt (halfway from the cold start, so a service that got slower
    // meanwhile is not hit at the old figures at once), else the cold start.
    const initial = options.learnt ? Math.max(INITIAL_CONCURRENCY, Math.round(options.learnt.concurrency * 0.75)) : INITIAL_CONCURRENCY;
    this.concurrencyLimit = new ConcurrencyLimit({ max: cap, initial }, limiterClock.now());
    this.slots = new Slots(this.concurrencyLimit.limit);
    const ceiling = options.maxRequestsPerSecond ?? UNBOUNDED_RATE;
    // A configured concurrency says what the user expects of the service; without one, a modest cold start.
    const coldStart = options.concurrency === undefined ? START_LEAST : Math.max(START_LEAST, options.concurrency * START_PER_SLOT);
    // A rate learnt before starts the slow start a little below it: the limit shows again within a second, not a burst past it.
    const start = options.learnt?.rate !== undefined ? Math.max(START_LEAST, options.learnt.rate * 0.9) : coldStart;
    this.limiter = new AdaptiveRateLimiter({
      maxPerSecond: ceiling,
      concurrency: this.concurrencyLimit.limit,
      startPerSecond: Math.min(ceiling, start),
      ...(options.minRequestsPerSecond === undefined ? {} : { minPerSecond: options.minRequestsPerSecond }),
      ...options.rateWindow,
      clock: limiterClock,
    });
    this.lastAnswerAt = this.clock.now();
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
    this.limiter.finish();
  }

  /** Resolves when nothing is queued, in flight or waiting to retry. */
  async onIdle(): Promise<void> {
    while (this.unsettled > 0) await this.nextChange();
  }

  /** Records waiting for a first request slot before `waitForCapacity` holds the reader: four per request the limit allows now. */
  get maxQueued(): number {
    return this.fixedMaxQueued ?? Math.max(16, this.concurrencyLimit.limit * 4);
  }

  private rateReason(): RateReason {
    if (this.rateBound !== undefined && this.limiter.heldByCeiling > 0 && this.limiter.currentRate >= this.rateBound) return 'bound';
    return this.limiter.inSlowStart ? 'unlimited' : 'throttled';
  }

  stats(): PusherStats {
    return {
      ...this.counters,
      currentRate: this.limiter.currentRate,
      rateReason: this.rateReason(),
      concurrency: this.concurrencyLimit.limit,
      concurrencyReason: this.concurrencyLimit.reason,
      concurrencyBound: this.concurrencyBound,
      peakInFlight: this.peakInFlight,
      noLoadRoundTripMs: this.concurrencyLimit.noLoadRoundTripMs,
      ceiling: this.rateBound,
      heldByCeiling: this.limiter.heldByCeiling,
      inFlight: this.sentInFlight,
      queued: this.queued,
      waitingToRetry: this.waitingToRetry,
    };
  }

  private send(job: PushJob): Promise<RecordResponse> {
    const opts: SinkCallOptions = job.json === undefined ? this.callOptions : { retry: false, hold: this.halt.signal, json: job.json };
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
    attempt: Attempt<R>,
    onOk: (response: R) => O,
    onRejected: (rejection: PushRejection) => O | PushRejection = (r) => r,
  ): Promise<O | PushRejection> {
    if (this.fatal) return Promise.reject(this.fatal);
    this.unsettled++;
    this.queued++;
    // One map per kind, keyed by the id itself: no key string to build and hash per record.
    const tails = this.tails[job.kind];
    const before = tails.get(job.remoteId);
    // A push of the key waits for the one before to settle, either way (that one's rejection is handled by its own caller).
    const result = before
      ? before.then(
          () => this.run(job, attempt, onOk, onRejected),
          () => this.run(job, attempt, onOk, onRejected),
        )
      : this.run(job, attempt, onOk, onRejected);
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

  private async run<R, O>(
    job: Job,
    attempt: Attempt<R>,
    onOk: (response: R) => O,
    onRejected: (rejection: PushRejection) => O | PushRejection,
  ): Promise<O | PushRejection> {
    let failures = 0;
    let firstFailureAt: number | undefined;
    for (let n = 1; ; n++) {
      const sent = await this.attemptOnce(job, attempt, n === 1);
      const now = this.clock.now();
      this.noteCapacity(sent);
      if (sent.ok) {
        this.noteAnswer(false);
        this.lastAnswerAt = now;
        this.logRate(this.limiter.onAnswer(false, undefined, sent.sentAt));
        this.counters.succeeded += 1;
        return onOk(sent.response);
      }
      const failure = classifyFailure(sent.error, now);
      if (failure.kind === 'fatal') throw sent.error;
      if (failure.kind === 'auth') throw this.setFatal(authError(job, failure.status, sent.error));
      if (failure.kind === 'permanent') {
        this.noteAnswer(false);
        this.lastAnswerAt = now;
        if (failure.status !== null) this.limiter.onAnswer(false, undefined, sent.sentAt);
        return onRejected(this.rejected(job, failure.status, sent.error));
      }
      // Transient. A 429 is the service pacing, not failing: it counts as a
      // failed attempt only while nothing else succeeds either.
      firstFailureAt ??= now;
      const outage = this.lastAnswerAt <= firstFailureAt && signalsOutage(failure.status);
      if (failure.status !== 429 || this.lastAnswerAt <= firstFailureAt) failures += 1;
      if (failure.status === 429) this.throttled(failure.retryAfterMs, sent.sentAt);
      else {
        this.noteAnswer(true);
        if (failure.status !== null) this.limiter.onAnswer(false, undefined, sent.sentAt);
      }
      // Past maxAttempts while the service serves others, the streak decides how many more (attemptsWhileServing).
      const serving = failures >= this.policy.maxAttempts && !outage && this.lastAnswerAt > firstFailureAt;
      const policy = serving ? { ...this.policy, maxAttempts: this.attemptsWhileServing() } : this.policy;
      const next = nextRetry(failure.retryAfterMs, { failures, ...(outage ? { outageMs: now - this.lastAnswerAt } : {}) }, policy, this.random);
      if (!next.retry) throw this.setFatal(exhausted(job, failure.status, n, sent.error));
      if (outage) this.reportOutage(now, failure.status, sent.error);
      this.counters.retries += 1;
      await this.waitToRetry(next.delayMs);
    }
  }

  /** One answer's round trip and status, to the concurrency limit; the slots and the pacer follow the limit it gives. */
  private noteCapacity(sent: Attempted<unknown>): void {
    const status = sent.ok ? 200 : (statusOf(sent.error) ?? null);
    const limit = this.concurrencyLimit.onAnswer({ status, roundTripMs: this.limiter.now() - sent.sentAt, inFlight: sent.inFlight }, this.limiter.now());
    if (limit !== this.slots.capacity) {
      this.slots.resize(limit);
      this.limiter.setConcurrency(limit);
      // More room in the queue too: readers held at the old size may go on.
      this.notify();
    }
  }

  /** One answer (429s aside): `failed` for a transient failure. The first answers are averaged plainly, later ones decay. */
  private noteAnswer(failed: boolean): void {
    this.answersSeen++;
    const weight = this.answersSeen < SHARE_MEMORY ? 1 / this.answersSeen : 1 / SHARE_MEMORY;
    this.transientShare += ((failed ? 1 : 0) - this.transientShare) * weight;
  }

  /**
   * Attempts a record gets while the service keeps serving other requests:
   * `maxAttempts`, or more where the service fails a share of requests at
   * random — enough that a streak this long is one that share would produce
   * less than once in a billion records (share^k < 10⁻⁹; 9 attempts at the
   * 7.8 % of the bench's fault mix, where 6 stopped 3 of 36 runs of 100,000
   * records on one unlucky record), at most 20. A record the service fails
   * on every time still gives up, and `maxAttempts: 1` (no retries) stays one.
   */
  private attemptsWhileServing(): number {
    const { maxAttempts } = this.policy;
    const share = this.transientShare;
    if (maxAttempts <= 1 || share <= 0) return maxAttempts;
    const plausible = share >= 1 ? MAX_ATTEMPTS_WHILE_SERVING : Math.ceil(Math.log(UNLIKELY_STREAK) / Math.log(share));
    return Math.min(MAX_ATTEMPTS_WHILE_SERVING, Math.max(maxAttempts, plausible));
  }

  /**
   * One attempt in a request slot: the slot is held only while paced and
   * sent. Written with `then` rather than as an async function: a promise
   * only where something waits (once per record, and more on a full queue).
   */
  private attemptOnce<R>(job: Job, attempt: Attempt<R>, first: boolean): Promise<Attempted<R>> {
    let slot: Promise<void> | undefined;
    try {
      this.checkStopped(job);
      slot = this.slots.acquire();
    } catch (error) {
      if (first) this.leaveQueue();
      return Promise.reject(error);
    }
    if (slot === undefined) {
      if (first) this.leaveQueue();
      return this.inSlot(job, attempt);
    }
    return slot.then(() => {
      if (first) this.leaveQueue();
      return this.inSlot(job, attempt);
    });
  }

  /** Out of the queue once it has a slot, or once it never will. */
  private leaveQueue(): void {
    this.queued--;
    this.notify();
  }

  /** Holding a slot: waits for the rate's turn, then sends. The slot is released whatever happens. */
  private inSlot<R>(job: Job, attempt: Attempt<R>): Promise<Attempted<R>> {
    let turn: Promise<void> | undefined;
    try {
      this.checkStopped(job);
      turn = this.limiter.tryAcquire(this.signal);
    } catch (error) {
      this.slots.release();
      return Promise.reject(error);
    }
    if (turn === undefined) return this.sendInSlot(job, attempt);
    return turn.then(
      () => this.sendInSlot(job, attempt),
      (error: unknown) => {
        this.slots.release();
        throw error;
      },
    );
  }

  /** Sends, holding a slot and a turn: a failed request is an outcome ({ ok: false }); a stopped run rejects. */
  private sendInSlot<R>(job: Job, attempt: Attempt<R>): Promise<Attempted<R>> {
    // When it went (not when it began to wait for its turn): a 429 to a request sent before the last decrease is old news.
    const sentAt = this.limiter.now();
    try {
      this.checkStopped(job);
    } catch (error) {
      this.slots.release();
      return Promise.reject(error);
    }
    this.counters.requests += 1;
    const inFlight = ++this.sentInFlight;
    if (inFlight > this.peakInFlight) this.peakInFlight = inFlight;
    let sending: Promise<R>;
    try {
      sending = attempt();
    } catch (error) {
      this.sentInFlight--;
      this.slots.release();
      return Promise.resolve({ ok: false, error, sentAt, inFlight });
    }
    return sending.then(
      (response): Attempted<R> => {
        this.sentInFlight--;
        this.slots.release();
        return { ok: true, response, sentAt, inFlight };
      },
      (error: unknown): Attempted<R> => {
        this.sentInFlight--;
        this.slots.release();
        return { ok: false, error, sentAt, inFlight };
      },
    );
  }

  private async waitToRetry(ms: number): Promise<void> {
    this.waitingToRetry++;
    try {
      await this.sleepFn(ms, this.signal);
    } finally {
      this.waitingToRetry--;
      this.notify();
    }
  }

  private throttled(retryAfterMs: number | undefined, sentAt: number): void {
    this.counters.throttled += 1;
    this.logRate(this.limiter.onAnswer(true, retryAfterMs, sentAt), retryAfterMs);
  }

  private logRate(decision: RateDecision, retryAfterMs?: number): void {
    if (decision.change === 'none') return;
    this.logger.debug({ rate: Math.round(decision.rate * 10) / 10, change: decision.change, retryAfterMs }, 'push rate changed');
  }

  private rejected(job: Job, status: number | null, error: unknown): PushRejection {
    this.counters.rejected += 1;
    const rejection: PushRejection = { ok: false, permanent: true, status, reason: rejectionReason(status, error), errorBody: errorBodyOf(error) ?? null };
    this.logger.debug({ kind: job.kind, remoteId: job.remoteId, status, reason: rejection.reason }, 'record rejected');
    return rejection;
  }

  /** While riding out an outage, say so now and then: how long, how much budget is left, what fails. */
  private reportOutage(now: number, status: number | null, error: unknown): void {
    const downForMs = now - this.lastAnswerAt;
    const reportAfter = Math.min(OUTAGE_REPORT_AFTER_MS, (this.policy.outageBudgetMs ?? 0) / 2);
    if (downForMs < reportAfter || now - this.outageLoggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    this.outageLoggedAt = now;
    this.logger.warn(
      {
        downForSeconds: Math.round(downForMs / 1000),
        budgetLeftSeconds: Math.max(0, Math.round(((this.policy.outageBudgetMs ?? 0) - downForMs) / 1000)),
        lastStatus: status,
        lastError: error instanceof Error ? error.message : String(error),
        waitingToRetry: this.waitingToRetry + 1,
      },
      'the service is failing every request; retrying until it recovers or the outage budget is spent',
    );
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


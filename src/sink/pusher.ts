/**
 * Pushes mapped records to the service: bounded concurrency (p-queue), an
 * adaptive client-side rate limit, the sink's own retry policy, and a bounded
 * queue so a fast reader cannot pile up bodies in memory.
 *
 * Retries live here, not in the HTTP client: every call goes out with
 * `retry: false`, so one 429 slows all requests down and attempts are never
 * multiplied by a second retry loop underneath.
 */
import PQueue from 'p-queue';
import { FerryError } from '../sdk/errors.js';
import type { ConnectorLogger } from '../sdk/types.js';
import type {
  ConversationRequest,
  DocumentRequest,
  MessageRequest,
  RowRequest,
} from '../api/schemas/write.js';
import type { DeletedRecordResponse, RecordResponse } from '../api/schemas/read.js';
import { systemClock } from '../sdk/clock.js';
import type { Clock } from '../sdk/clock.js';
import { abortedError } from '../sdk/http-retry.js';
import { AdaptiveRateLimiter } from './rate-limiter.js';
import { classifyFailure, errorBodyOf, rejectionReason } from './service-port.js';
import type { RecordKind, SinkCallOptions, SinkService } from './service-port.js';

export type SinkLogger = Pick<ConnectorLogger, 'debug' | 'info' | 'warn'>;

export interface PushJob {
  kind: RecordKind;
  /** The record's caller id (`body.id`), for logs. */
  remoteId: string;
  /** The mapped request body, already validated against the endpoint's schema. */
  body: Record<string, unknown>;
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
  inFlight: number;
  queued: number;
}

export interface PusherOptions {
  service: SinkService;
  concurrency: number;
  maxRequestsPerSecond: number;
  /** Lowest rate 429s can push the adaptive limit to. @default 0.5 */
  minRequestsPerSecond?: number;
  /** Attempts per record, the first included. */
  maxAttempts: number;
  logger: SinkLogger;
  /** Aborts every wait (queue, rate limit, backoff); requests already sent finish. */
  signal?: AbortSignal;
  /** Injectable sleep; defaults to the clock's. Tests record it. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  clock?: Clock;
  /** [0, 1) source for jitter. @default Math.random */
  random?: () => number;
  /** First backoff window. @default 250 */
  baseDelayMs?: number;
  /** Longest backoff. @default 30000 */
  maxDelayMs?: number;
  /** Shortest backoff, so a jitter of 0 never turns into a tight loop. @default 50 */
  minDelayMs?: number;
  /** Longest Retry-After honoured; longer hints are capped. @default 300000 */
  maxRetryAfterMs?: number;
  /** Records waiting for a worker before `waitForCapacity` holds the reader. @default concurrency × 4 */
  maxQueued?: number;
}

type Attempt<T> = () => Promise<T>;

export class Pusher {
  private readonly service: SinkService;
  private readonly queue: PQueue;
  private readonly limiter: AdaptiveRateLimiter;
  private readonly clock: Clock;
  private readonly sleepFn: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly logger: SinkLogger;
  private readonly signal: AbortSignal | undefined;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly minDelayMs: number;
  private readonly maxRetryAfterMs: number;
  readonly maxQueued: number;

  private fatal: FerryError | undefined;
  private draining = false;
  private readonly counters = { requests: 0, retries: 0, throttled: 0, succeeded: 0, rejected: 0 };

  constructor(options: PusherOptions) {
    if (!(options.concurrency >= 1)) throw new FerryError('FERRY_CONFIG_INVALID', `concurrency must be at least 1, found ${options.concurrency}`);
    if (!(options.maxRequestsPerSecond > 0)) {
      throw new FerryError('FERRY_CONFIG_INVALID', `maxRequestsPerSecond must be positive, found ${options.maxRequestsPerSecond}`);
    }
    this.service = options.service;
    this.clock = options.clock ?? systemClock;
    const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => this.clock.sleep(ms, signal));
    this.sleepFn = sleep;
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    this.signal = options.signal;
    this.maxAttempts = Math.max(1, options.maxAttempts);
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.minDelayMs = options.minDelayMs ?? 50;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
    this.maxQueued = options.maxQueued ?? options.concurrency * 4;
    this.queue = new PQueue({ concurrency: options.concurrency });
    // The limiter waits through the same (possibly recorded) sleep as backoff does.
    this.limiter = new AdaptiveRateLimiter({
      maxPerSecond: options.maxRequestsPerSecond,
      ...(options.minRequestsPerSecond === undefined ? {} : { minPerSecond: options.minRequestsPerSecond }),
      clock: { now: () => this.clock.now(), sleep },
    });
  }

  /** Upsert one record. Resolves with its outcome; rejects only on run-fatal errors (auth, service gone, abort). */
  push(job: PushJob): Promise<PushOutcome> {
    return this.enqueue(job, () => this.send(job), (r) => ({ ok: true, recordId: r.recordId, status: r.status }));
  }

  /** Soft-delete one record (for `deletes: mirror`). A 404 counts as already deleted. */
  delete(job: DeleteJob): Promise<DeleteOutcome> {
    const query = { remoteId: job.remoteId, sourceId: job.sourceId };
    const opts: SinkCallOptions = { retry: false };
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

  /** Resolves when fewer than `maxQueued` records wait for a worker; await it before each `push`. */
  async waitForCapacity(): Promise<void> {
    while (this.queue.size >= this.maxQueued) {
      if (this.signal?.aborted) throw abortedError(this.signal, 'waiting for push capacity');
      await this.queue.onSizeLessThan(this.maxQueued);
    }
  }

  /** Resolves when nothing is queued or in flight. */
  onIdle(): Promise<void> {
    return this.queue.onIdle();
  }

  /**
   * Stop starting records (those still queued reject with FERRY_ABORTED and
   * were never sent), let requests in flight finish, and return.
   */
  async drain(): Promise<void> {
    this.draining = true;
    await this.queue.onIdle();
  }

  stats(): PusherStats {
    return {
      ...this.counters,
      currentRate: this.limiter.currentRate,
      inFlight: this.queue.pending,
      queued: this.queue.size,
    };
  }

  private send(job: PushJob): Promise<RecordResponse> {
    const opts: SinkCallOptions = { retry: false };
    // The mapper validated the body against this endpoint's schema; the port takes the typed shape.
    switch (job.kind) {
      case 'conversation': return this.service.createConversation(job.body as ConversationRequest, opts);
      case 'message': return this.service.createMessage(job.body as MessageRequest, opts);
      case 'row': return this.service.createRow(job.body as RowRequest, opts);
      case 'document': return this.service.createDocument(job.body as DocumentRequest, opts);
    }
  }

  private async enqueue<R, O>(
    job: { kind: RecordKind; remoteId: string },
    attempt: Attempt<R>,
    onOk: (response: R) => O,
    onRejected: (rejection: PushRejection) => O | PushRejection = (r) => r,
  ): Promise<O | PushRejection> {
    if (this.fatal) throw this.fatal;
    // No queue-level signal: a task that starts after an abort rejects with FERRY_ABORTED itself.
    const result = await this.queue.add(() => this.run(job, attempt, onOk, onRejected));
    return result as O | PushRejection;
  }

  private async run<R, O>(
    job: { kind: RecordKind; remoteId: string },
    attempt: Attempt<R>,
    onOk: (response: R) => O,
    onRejected: (rejection: PushRejection) => O | PushRejection,
  ): Promise<O | PushRejection> {
    for (let n = 1; ; n++) {
      this.checkStopped(job);
      await this.limiter.acquire(this.signal);
      this.checkStopped(job);
      this.counters.requests += 1;
      let response: R;
      try {
        response = await attempt();
      } catch (error) {
        const failure = classifyFailure(error, this.clock.now());
        switch (failure.kind) {
          case 'auth':
            throw this.setFatal(
              new FerryError('FERRY_SERVICE_AUTH', `the service refused the API key (HTTP ${failure.status}) while pushing ${job.kind} ${JSON.stringify(job.remoteId)}`, {
                cause: error,
                details: { status: failure.status, kind: job.kind, remoteId: job.remoteId },
                hint: failure.status === 401
                  ? 'the API key is invalid or revoked; set service.apiKey to a valid key'
                  : 'the API key lacks the ingest scope; give it the Import permission',
              }),
            );
          case 'permanent': {
            this.counters.rejected += 1;
            const rejection: PushRejection = {
              ok: false,
              permanent: true,
              status: failure.status,
              reason: rejectionReason(failure.status, error),
              errorBody: errorBodyOf(error) ?? null,
            };
            this.logger.debug({ kind: job.kind, remoteId: job.remoteId, status: failure.status, reason: rejection.reason }, 'record rejected');
            return onRejected(rejection);
          }
          case 'fatal':
            throw error;
          case 'transient': {
            if (failure.status === 429) {
              this.counters.throttled += 1;
              const hint = failure.retryAfterMs === undefined ? undefined : Math.min(failure.retryAfterMs, this.maxRetryAfterMs);
              this.limiter.onThrottle(hint);
              this.logger.debug({ rate: this.limiter.currentRate, retryAfterMs: hint }, 'throttled by the service');
            }
            if (n >= this.maxAttempts) throw this.setFatal(exhausted(job, failure.status, n, error));
            this.counters.retries += 1;
            // With a Retry-After the limiter already holds every request until then; otherwise back off.
            if (failure.status !== 429 || failure.retryAfterMs === undefined) {
              await this.sleepFn(this.backoff(n), this.signal);
            }
            continue;
          }
        }
      }
      this.counters.succeeded += 1;
      this.limiter.onSuccess();
      return onOk(response);
    }
  }

  /** Exponential backoff with full jitter, at least `minDelayMs`. */
  private backoff(attempt: number): number {
    const window = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.max(this.minDelayMs, Math.floor(this.random() * window));
  }

  private checkStopped(job: { kind: RecordKind; remoteId: string }): void {
    if (this.fatal) throw this.fatal;
    if (this.signal?.aborted) throw abortedError(this.signal, `pushing ${job.kind} ${JSON.stringify(job.remoteId)}`);
    if (this.draining) {
      throw new FerryError('FERRY_ABORTED', `${job.kind} ${JSON.stringify(job.remoteId)} was not sent: the run is stopping`);
    }
  }

  private setFatal(error: FerryError): FerryError {
    this.fatal ??= error;
    return error;
  }
}

function exhausted(job: { kind: RecordKind; remoteId: string }, status: number | null, attempts: number, cause: unknown): FerryError {
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

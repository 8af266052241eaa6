/**
 * The retry decision for many requests to one service at once (the pusher's
 * record pushes), taken by the transport's attempt loop: one
 * {@link ServiceHealth} per client of a service (a push), shared by all its
 * requests, holds what one request alone cannot know —
 *
 * - when the service last answered something other than a transient failure
 *   (an outage is "nothing answered since this request first failed", and its
 *   length is what the outage budget is measured against);
 * - the share of its recent answers that were transient failures (a service
 *   failing a fifth of requests at random gives a record more attempts than
 *   `maxAttempts`: see {@link ServiceHealth.attemptsAllowed});
 * - that a 429 is the service pacing, not failing: it counts as a failed
 *   attempt only while nothing else succeeds either;
 * - and, while it rides out an outage, a warning now and then.
 *
 * {@link retrying} is the loop itself: the transport runs it around its single
 * attempt (HttpTransport.attempt with `retry`), and a stand-in for the client
 * that has no HTTP (a test's in-memory service) runs it around its own, so
 * both retry by the same rules. Between attempts nothing is held: no request
 * slot, no breaker ticket; every attempt is admitted by the request control
 * afresh. docs/sink.md ("Retry policy") gives the reasons.
 */
import { abortedError, DEFAULT_RETRY, nextRetry, signalsOutage, sleep } from '../http-retry.js';
import type { RetryPolicy } from '../http-retry.js';

/** What the owner of the requests counts and is told (the pusher's counters and backpressure). They must not throw. */
export interface RetryHooks {
  /** An attempt is about to go (before its admission). */
  onAttempt?(): void;
  /** An attempt was answered 429. */
  onThrottled?(): void;
  /** A request starts waiting for its next attempt. */
  onRetryWait?(delayMs: number, status: number | null): void;
  /** That wait ended (slept, or cut by the signal). */
  onRetryWaitEnd?(): void;
}

export interface ServiceHealthOptions {
  /** `maxAttempts` and `outageBudgetMs` as the caller configured them; the rest defaults to DEFAULT_RETRY. */
  policy: Partial<RetryPolicy> & { maxAttempts: number };
  /** Milliseconds (answer times, outage length; the epoch for Retry-After dates in a stand-in). @default Date.now */
  now?: () => number;
  /** Waits between attempts. @default the SDK's abortable sleep */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** Where the outage warning goes. */
  logger?: { warn(obj: object, msg: string): void };
  hooks?: RetryHooks;
}

/** How one attempt came out, as the loop reads it. */
export type AttemptVerdict =
  /** Final, answered by a service that is up (a success, a refusal). */
  | typeof ANSWERED
  /** Final, and says nothing of the service (refused before sending, a bug). */
  | typeof FINAL
  /** Worth another attempt: 408, 409, 429, 5xx, or no answer (`status: null`). */
  | { kind: 'transient'; status: number | null; retryAfterMs: number | undefined };

export const ANSWERED = Object.freeze({ kind: 'answered' as const });
export const FINAL = Object.freeze({ kind: 'final' as const });

/** How often a service that stays down is reported while the run rides it out. */
const OUTAGE_LOG_INTERVAL_MS = 30_000;
/** A few seconds without success are ordinary retries, not yet an outage worth a warning. */
const OUTAGE_REPORT_AFTER_MS = 5_000;
/**
 * While the service serves other requests, a request gives up only on a
 * streak of transient failures that the service's own share of them would
 * produce less often than this (see {@link ServiceHealth.attemptsAllowed}).
 */
const UNLIKELY_STREAK = 1e-9;
/** The most attempts that rule gives a request (the most `maxAttempts` may be set to). */
const MAX_ATTEMPTS_WHILE_SERVING = 20;
/** Answers the transient-failure share is averaged over (an exponential moving average past the first ones). */
const SHARE_MEMORY = 2000;

/** See the module comment. One per client of a service, shared by all its requests. */
export class ServiceHealth {
  readonly policy: Readonly<Required<RetryPolicy>>;
  readonly hooks: RetryHooks;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: (() => number) | undefined;
  private readonly logger: ServiceHealthOptions['logger'];
  /** When the service last answered a request with something other than a transient failure. */
  private lastAnswerAt: number;
  private outageLoggedAt = Number.NEGATIVE_INFINITY;
  /** Share of the service's recent answers (429s aside) that were transient failures. */
  private transientShare = 0;
  private answersSeen = 0;
  /** Requests waiting for their next attempt now (for the outage warning). */
  private waiting = 0;

  constructor(options: ServiceHealthOptions) {
    this.policy = Object.freeze({ ...DEFAULT_RETRY, ...definedOnly(options.policy) });
    this.hooks = options.hooks ?? {};
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms, signal) => sleep(ms, signal, 'waiting to retry'));
    this.random = options.random;
    this.logger = options.logger;
    this.lastAnswerAt = this.now();
  }

  /** An attempt answered by a service that is up (not a transient failure). */
  answered(now: number): void {
    this.note(false);
    this.lastAnswerAt = now;
  }

  /**
   * Attempts a request gets while the service keeps serving other requests:
   * `maxAttempts`, or more where the service fails a share of requests at
   * random — enough that a streak this long is one that share would produce
   * less than once in a billion requests (share^k < 10⁻⁹: a fixed count stops
   * a long run on one unlucky record), at most 20. A request the service fails
   * on every time still gives up, and `maxAttempts: 1` (no retries) stays one.
   */
  attemptsAllowed(): number {
    const { maxAttempts } = this.policy;
    const share = this.transientShare;
    if (maxAttempts <= 1 || share <= 0) return maxAttempts;
    const plausible = share >= 1 ? MAX_ATTEMPTS_WHILE_SERVING : Math.ceil(Math.log(UNLIKELY_STREAK) / Math.log(share));
    return Math.min(MAX_ATTEMPTS_WHILE_SERVING, Math.max(maxAttempts, plausible));
  }

  /**
   * After a transient failure: retry (and how long to wait first) or give up.
   * `streak` is the request's own: its counted failures and when it first failed.
   */
  decide(status: number | null, retryAfterMs: number | undefined, streak: Streak, now: number): { retry: true; delayMs: number } | { retry: false } {
    streak.firstFailureAt ??= now;
    const nothingSince = this.lastAnswerAt <= streak.firstFailureAt;
    const outage = nothingSince && signalsOutage(status);
    // A 429 is the service pacing, not failing: a failed attempt only while nothing else succeeds either.
    if (status !== 429 || nothingSince) streak.failures += 1;
    if (status === 429) this.hooks.onThrottled?.();
    else this.note(true);
    // Past maxAttempts while the service serves others, the streak rule decides how many more.
    const serving = streak.failures >= this.policy.maxAttempts && !outage && !nothingSince;
    const policy = serving ? { ...this.policy, maxAttempts: this.attemptsAllowed() } : this.policy;
    const next = nextRetry(retryAfterMs, { failures: streak.failures, ...(outage ? { outageMs: now - this.lastAnswerAt } : {}) }, policy, this.random);
    if (next.retry && outage) this.reportOutage(now, status, streak.lastError);
    return next;
  }

  /** One answer (429s aside): `failed` for a transient failure. The first answers are averaged plainly, later ones decay. */
  private note(failed: boolean): void {
    this.answersSeen++;
    const weight = this.answersSeen < SHARE_MEMORY ? 1 / this.answersSeen : 1 / SHARE_MEMORY;
    this.transientShare += ((failed ? 1 : 0) - this.transientShare) * weight;
  }

  /** While riding out an outage, say so now and then: how long, how much budget is left, what fails. */
  private reportOutage(now: number, status: number | null, error: unknown): void {
    const downForMs = now - this.lastAnswerAt;
    const budgetMs = this.policy.outageBudgetMs;
    const reportAfter = Math.min(OUTAGE_REPORT_AFTER_MS, budgetMs / 2);
    if (this.logger === undefined || downForMs < reportAfter || now - this.outageLoggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    this.outageLoggedAt = now;
    this.logger.warn(
      {
        downForSeconds: Math.round(downForMs / 1000),
        budgetLeftSeconds: Math.max(0, Math.round((budgetMs - downForMs) / 1000)),
        lastStatus: status,
        lastError: error instanceof Error ? error.message : error === undefined ? `HTTP ${status}` : String(error),
        waitingToRetry: this.waiting + 1,
      },
      'the service is failing every request; retrying until it recovers or the outage budget is spent',
    );
  }

  /** Wait `ms` before the next attempt, told to the hooks (a waiting request holds nothing: see the module comment). */
  wait(ms: number, status: number | null, signal: AbortSignal | undefined): Promise<void> {
    this.waiting++;
    this.hooks.onRetryWait?.(ms, status);
    const done = (): void => {
      this.waiting--;
      this.hooks.onRetryWaitEnd?.();
    };
    return this.sleep(ms, signal).then(done, (error: unknown) => {
      done();
      throw error;
    });
  }
}

/** One request's failures so far, as {@link ServiceHealth.decide} counts them. */
export interface Streak {
  failures: number;
  firstFailureAt: number | undefined;
  /** The last failure's error, for the outage warning (undefined for an answer). */
  lastError: unknown;
}

/**
 * Run `attempt` until its outcome is final or the health's policy gives up:
 * resolves or rejects as the last attempt did. `verdict` reads an attempt's
 * outcome (`failed`: it rejected with `outcome`). Before each attempt and
 * while waiting, `signal` stops it with FERRY_ABORTED; an attempt already sent
 * is not cut here (the attempt's own signal does that). The first attempt is
 * chained with `then`, the loop entered only after a transient failure: at
 * thousands of pushes a second, the promises an async function adds to every
 * request count.
 */
export function retrying<T>(
  health: ServiceHealth,
  attempt: (n: number) => Promise<T>,
  verdict: (failed: boolean, outcome: unknown) => AttemptVerdict,
  signal: AbortSignal | undefined,
  label: string,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(abortedError(signal, label));
  health.hooks.onAttempt?.();
  let first: Promise<T>;
  try {
    first = attempt(1);
  } catch (error) {
    first = Promise.reject(error);
  }
  const after = (failed: boolean, outcome: unknown): T | Promise<T> => {
    const seen = verdict(failed, outcome);
    if (seen.kind !== 'transient') {
      if (seen === ANSWERED) health.answered(health.now());
      if (failed) throw outcome;
      return outcome as T;
    }
    return again(health, attempt, verdict, signal, label, failed, outcome, seen);
  };
  return first.then(
    (value) => after(false, value),
    (error: unknown) => after(true, error),
  );
}

/** The loop of {@link retrying} after attempt 1 failed transiently (`seen`). */
async function again<T>(
  health: ServiceHealth,
  attempt: (n: number) => Promise<T>,
  verdict: (failed: boolean, outcome: unknown) => AttemptVerdict,
  signal: AbortSignal | undefined,
  label: string,
  failed: boolean,
  outcome: unknown,
  seen: AttemptVerdict & { kind: 'transient' },
): Promise<T> {
  const streak: Streak = { failures: 0, firstFailureAt: undefined, lastError: undefined };
  for (let n = 2; ; n++) {
    streak.lastError = failed ? outcome : undefined;
    const next = health.decide(seen.status, seen.retryAfterMs, streak, health.now());
    if (!next.retry) {
      if (failed) throw outcome;
      return outcome as T;
    }
    await health.wait(next.delayMs, seen.status, signal);
    if (signal?.aborted) throw abortedError(signal, label);
    health.hooks.onAttempt?.();
    try {
      outcome = await attempt(n);
      failed = false;
    } catch (caught) {
      outcome = caught;
      failed = true;
    }
    const verdictOf = verdict(failed, outcome);
    if (verdictOf.kind !== 'transient') {
      if (verdictOf === ANSWERED) health.answered(health.now());
      if (failed) throw outcome;
      return outcome as T;
    }
    seen = verdictOf;
  }
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

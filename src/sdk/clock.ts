/** Time as ferry's waiting code sees it, injectable so tests run on a virtual clock. */
import { sleep } from './http-retry.js';

/** A source of time: the system's, or a virtual one in tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Wait `ms`; reject with FERRY_ABORTED as soon as `signal` fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and an abortable timer. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, signal),
};

/** A monotonic clock for pacing: `performance.now`, immune to wall-clock steps. */
export const monotonicClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, signal),
};

/** Time as the sink sees it, injectable so tests run on a virtual clock. */
import { sleep } from '../sdk/http-retry.js';

export { abortedError } from '../sdk/http-retry.js';

export interface Clock {
  now(): number;
  /** Wait `ms`; reject with FERRY_ABORTED as soon as `signal` fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, signal),
};

/** A monotonic clock for pacing: `performance.now`, immune to wall-clock steps. */
export const monotonicClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, signal),
};

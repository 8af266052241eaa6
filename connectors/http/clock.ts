/** Time as the http source sees it; injectable so tests run on a virtual clock. */
import { sleep } from '../../src/sdk/index.js';

export interface Clock {
  now(): number;
  /** Wait `ms`; reject with FERRY_ABORTED as soon as `signal` fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, signal, 'http source wait'),
};

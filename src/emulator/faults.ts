/**
 * Fault injection for tests and benchmarks: latency with jitter, random
 * 429s and 500s, dropped connections and a per-key token-bucket rate limit.
 * A seeded RNG makes a sequence of decisions reproducible.
 */
import type { FaultOptions } from './options.js';

/** mulberry32: tiny, fast, good enough for fault dice. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type FaultDecision =
  | { kind: 'pass'; latencyMs: number }
  | { kind: 'drop'; latencyMs: number }
  | { kind: 'error500'; latencyMs: number }
  | { kind: 'throttle'; latencyMs: number; retryAfterSeconds: number; reason: 'injected' | 'rate_limit' };

interface Bucket {
  tokens: number;
  refilledMs: number;
}

export class FaultInjector {
  private options: FaultOptions = {};
  private random: () => number = Math.random;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: FaultOptions = {}) {
    this.set(options);
  }

  get(): FaultOptions {
    return { ...this.options };
  }

  set(options: FaultOptions): void {
    this.options = { ...options };
    this.random = options.seed !== undefined ? seededRandom(options.seed) : Math.random;
    this.buckets.clear();
  }

  /** What to do with the next /v1 request of `key` (the bearer token, or '' without one). */
  decide(key: string, now = Date.now()): FaultDecision {
    const o = this.options;
    const latencyMs = (o.latencyMs ?? 0) + (o.jitterMs ? this.random() * o.jitterMs : 0);
    const retryAfterSeconds = o.retryAfterSeconds ?? 1;
    if (o.dropRate && this.random() < o.dropRate) return { kind: 'drop', latencyMs };
    if (o.rate500 && this.random() < o.rate500) return { kind: 'error500', latencyMs };
    if (o.rate429 && this.random() < o.rate429) return { kind: 'throttle', latencyMs, retryAfterSeconds, reason: 'injected' };
    if (o.rateLimitPerSecond !== undefined && !this.take(key, o.rateLimitPerSecond, o.rateLimitBurst ?? o.rateLimitPerSecond, now)) {
      const wait = Math.max(1, Math.ceil(1 / o.rateLimitPerSecond));
      return { kind: 'throttle', latencyMs, retryAfterSeconds: o.retryAfterSeconds ?? wait, reason: 'rate_limit' };
    }
    return { kind: 'pass', latencyMs };
  }

  private take(key: string, perSecond: number, burst: number, now: number): boolean {
    const bucket = this.buckets.get(key) ?? { tokens: burst, refilledMs: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.refilledMs) / 1000) * perSecond);
    bucket.refilledMs = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

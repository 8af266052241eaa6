/**
 * The learnt rate shared across processes (rate-budget.ts as a RateShare),
 * on the local PostgreSQL: several budget handles on one API key, each with
 * its own pool and holder row (a process each, as workers are), each pacing
 * a RequestControl, all against one token bucket standing in for the
 * service. Together they hold the bucket's rate with few 429s, and a
 * process that joins later starts at its share of the learnt rate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SharedRateBudget } from '../../../src/runtime/rate-budget.js';
import { RequestControl } from '../../../src/sdk/transport/control/request-control.js';
import { sleep } from '../../../src/sdk/http-retry.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../helpers/postgres.js';

const RATE = 100;
const BURST = 10;
const LATENCY_MS = 20;

/** A service with a token bucket: 429 with Retry-After 1 s when empty, else answered after LATENCY_MS. */
class BucketService {
  private tokens = BURST;
  private at = performance.now();
  accepted: number[] = [];
  throttled = 0;

  async call(): Promise<void> {
    const now = performance.now();
    this.tokens = Math.min(BURST, this.tokens + ((now - this.at) * RATE) / 1000);
    this.at = now;
    if (this.tokens < 1) {
      this.throttled++;
      throw Object.assign(new Error('429'), { status: 429, retryAfterMs: 1000 });
    }
    this.tokens -= 1;
    this.accepted.push(now);
    await sleep(LATENCY_MS);
  }

  /** Accepted per second between `from` and `to` (performance.now). */
  rate(from: number, to: number): number {
    return (this.accepted.filter((t) => t >= from && t < to).length * 1000) / (to - from);
  }
}

/** One process: `workers` loops sending through its control, each waiting out a 429's Retry-After before the next. */
function sendUntil(control: RequestControl, service: BucketService, workers: number, stop: AbortSignal): Promise<void[]> {
  return Promise.all(
    Array.from({ length: workers }, async () => {
      while (!stop.aborted) {
        try {
          await control.admitted(() => service.call(), stop);
        } catch (error) {
          if (stop.aborted) return;
          await sleep((error as { retryAfterMs?: number }).retryAfterMs ?? 0, stop).catch(() => undefined);
        }
      }
    }),
  );
}

describe('the learnt rate, shared by processes on one API key', () => {
  const schema = freshSchema('ferry_h47_share');
  const open: SharedRateBudget[] = [];
  afterAll(async () => {
    for (const budget of open) await budget.close().catch(() => undefined);
    await dropSchemas(schema);
  });

  it('holds one bucket with four processes at once, few 429s, and starts a newcomer at its share', async () => {
    await pgQuery(`CREATE SCHEMA "${schema}"`);
    const budgets = await Promise.all(Array.from({ length: 4 }, () => SharedRateBudget.open(PG_URL, schema, 'shared-key-secret', 100_000)));
    open.push(...budgets);
    const service = new BucketService();
    const controls = budgets.map((budget) => new RequestControl({ share: budget }));
    const stop = new AbortController();
    const started = performance.now();
    const running = controls.map((control) => sendUntil(control, service, 16, stop.signal));
    await sleep(8000);
    const settledFrom = performance.now() - 4000;
    const throttledBefore = service.throttled;
    const acceptedBefore = service.accepted.length;

    // A fifth process: it starts at its share of what the four learnt, not at the cold start nor at the whole rate.
    const newcomer = await SharedRateBudget.open(PG_URL, schema, 'shared-key-secret', 100_000);
    open.push(newcomer);
    const learnt = newcomer.learnt;
    const late = new RequestControl({ share: newcomer });
    const startRate = late.stats().rate;
    const joined = sendUntil(late, service, 16, stop.signal);
    await sleep(3000);
    const end = performance.now();
    stop.abort();
    await Promise.all([...running, joined]);

    const together = service.rate(settledFrom, end - 3000);
    const answers = service.accepted.length + service.throttled;
    const figures = {
      together,
      withNewcomer: service.rate(end - 2000, end),
      throttledShare: service.throttled / answers,
      throttledAfterJoin: (service.throttled - throttledBefore) / Math.max(1, service.throttled - throttledBefore + service.accepted.length - acceptedBefore),
      startRate,
      learnt,
      rates: [...controls, late].map((c) => Math.round(c.stats().rate)),
      seconds: (end - started) / 1000,
    };
    const shown = JSON.stringify(figures);
    expect(learnt, shown).toBeGreaterThan(RATE * 0.6);
    expect(learnt, shown).toBeLessThan(RATE * 1.3);
    // Together at the bucket's rate, not four times it, with few 429s (four controls that share nothing: 0.18 here).
    expect(together, shown).toBeGreaterThan(RATE * 0.8);
    expect(together, shown).toBeLessThanOrEqual(RATE * 1.05);
    expect(figures.throttledShare, shown).toBeLessThan(0.09);
    // The newcomer: at its share of the learnt rate (a fifth), not at the cold start (50/s) nor the whole rate.
    expect(startRate, shown).toBeGreaterThan(RATE / 5 / 2);
    expect(startRate, shown).toBeLessThan(RATE / 3);
    expect(figures.withNewcomer, shown).toBeGreaterThan(RATE * 0.8);

    // One row per live process, none naming the key; closing one takes its row away.
    const holders = await pgQuery<{ key: string; holder: string }>(`SELECT key, holder FROM "${schema}".rate_holders`);
    expect(holders.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(holders)).not.toContain('secret');
    await newcomer.close();
    open.splice(open.indexOf(newcomer), 1);
    expect((await pgQuery(`SELECT 1 FROM "${schema}".rate_holders WHERE holder = $1`, [newcomer.holder])).length).toBe(0);
  }, 60_000);
});

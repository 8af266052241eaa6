/**
 * The learnt rate shared across processes (rate-budget.ts as a RateShare),
 * on the local PostgreSQL: several budget handles on one API key, each with
 * its own pool and holder row (a process each, as workers are), each pacing
 * a RequestControl, all against one token bucket standing in for the
 * service. Together they hold the bucket's rate with few 429s, and a
 * process that joins later starts at its share of the learnt rate.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SharedRateBudget } from '../../../src/runtime/rate-budget.js';
import type { ShareMember, ShareNews } from '../../../src/sdk/transport/control/rate-share.js';
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

/** A control as the share sees it, recording what it was told; it sends (200/s, all accepted) unless held. */
class FakeMember implements ShareMember {
  private sending = true;
  private admitted = 0;
  readonly adopted: { rate: number; how: ShareNews }[] = [];
  holds = 0;
  releases = 0;

  counts(): { admitted: number; accepted: number } {
    if (this.sending) this.admitted += 50;
    return { admitted: this.admitted, accepted: this.admitted };
  }

  adopt(rate: number, how: ShareNews): void {
    this.adopted.push({ rate, how });
  }

  holdFor(): void {
    this.holds++;
    this.sending = false;
  }

  release(): void {
    this.releases++;
    this.sending = true;
  }

  /** The last share it was told to start at. */
  get started(): number | undefined {
    return this.adopted.filter((a) => a.how === 'start').at(-1)?.rate;
  }
}

function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
}

describe('the slow start and the split, shared by processes on one API key', () => {
  const schema = freshSchema('ferry_h47_lease');
  const open: SharedRateBudget[] = [];
  const opened = async (apiKey: string, n: number): Promise<SharedRateBudget[]> => {
    const budgets = await Promise.all(Array.from({ length: n }, () => SharedRateBudget.open(PG_URL, schema, apiKey, 100_000)));
    open.push(...budgets);
    return budgets;
  };
  const close = async (budget: SharedRateBudget): Promise<void> => {
    open.splice(open.indexOf(budget), 1);
    await budget.close();
  };
  const prober = async (apiKey: string): Promise<string | null> =>
    (await pgQuery<{ probe_by: string | null }>(`SELECT probe_by FROM "${schema}".rate_budget WHERE key = $1`, [keyHash(apiKey)]))[0]?.probe_by ?? null;
  beforeAll(async () => {
    await pgQuery(`CREATE SCHEMA "${schema}"`);
    await (await SharedRateBudget.open(PG_URL, schema, 'tables-key', 100_000)).close();
  });
  afterAll(async () => {
    for (const budget of open) await budget.close().catch(() => undefined);
    await dropSchemas(schema);
  });

  it('lets one process run the slow start while the others wait, then starts them at their share of the limit it found', async () => {
    const budgets = await opened('lease-key', 3);
    const lease = await prober('lease-key');
    expect(budgets.filter((b) => b.holder === lease)).toHaveLength(1);
    const members = budgets.map(() => new FakeMember());
    budgets.forEach((budget, i) => budget.join(members[i]!));
    const first = budgets.findIndex((b) => b.holder === lease);
    const waiting = members.filter((_, i) => i !== first);
    // Only the prober's control goes; the others are held, and stay held while it searches.
    expect(members[first]!.holds).toBe(0);
    for (const member of waiting) expect(member.holds).toBeGreaterThan(0);
    await sleep(400);
    for (const member of waiting) expect(member.releases).toBe(0);

    // The prober's slow start ends at 97/s (the limit it found: 100/s): it comes down to its share, the others start at theirs.
    budgets[first]!.throttled(members[first]!, 97);
    await vi.waitFor(() => {
      for (const member of waiting) expect(member.started).toBeDefined();
    }, { timeout: 3000, interval: 20 });
    for (const member of members) expect(member.started).toBeCloseTo(100 / 3, 0);
    for (const member of waiting) expect(member.releases).toBe(1);
    expect(await prober('lease-key')).toBeNull();
  });

  it('passes the lease to another process when the prober closes before finding a limit', async () => {
    const budgets = await opened('handover-key', 3);
    const lease = await prober('handover-key');
    const members = budgets.map(() => new FakeMember());
    budgets.forEach((budget, i) => budget.join(members[i]!));
    const first = budgets.find((b) => b.holder === lease)!;
    await close(first);
    // One of the two that waited takes the lease and its control runs the slow start; the other still waits.
    const rest = budgets.filter((b) => b !== first).map((b) => b.holder);
    let taken: string | null = null;
    await vi.waitFor(async () => {
      taken = await prober('handover-key');
      expect(rest).toContain(taken);
    }, { timeout: 3000, interval: 20 });
    const taker = budgets.findIndex((b) => b.holder === taken);
    await vi.waitFor(() => expect(members[taker]!.releases).toBe(1), { timeout: 3000, interval: 20 });
    const other = budgets.findIndex((b) => b !== first && b.holder !== taken);
    expect(members[other]!.releases).toBe(0);
  });

  it('starts a newcomer at its share and has the others make room; a holder that stopped beating drops out of the split', async () => {
    const apiKey = 'split-key';
    // A limit learnt before (by an earlier run): 120/s.
    await pgQuery(`INSERT INTO "${schema}".rate_budget (key, tokens, refilled_at, learnt) VALUES ($1, 1, clock_timestamp(), 120)`, [keyHash(apiKey)]);
    const [a, b] = await opened(apiKey, 2);
    // A process killed without closing: its row stays, with its last heartbeat 5 s ago.
    await pgQuery(`INSERT INTO "${schema}".rate_holders (key, holder, accepted, seen_at) VALUES ($1, 'killed', 40, clock_timestamp() - interval '5 seconds')`, [keyHash(apiKey)]);
    const [ma, mb] = [new FakeMember(), new FakeMember()];
    a!.join(ma);
    b!.join(mb);
    await vi.waitFor(() => {
      expect(ma.started).toBeCloseTo(60, 0);
      expect(mb.started).toBeCloseTo(60, 0);
    }, { timeout: 3000, interval: 20 });

    const [c] = await opened(apiKey, 1);
    const mc = new FakeMember();
    c!.join(mc);
    expect(mc.started).toBeCloseTo(40, 0);
    await vi.waitFor(() => {
      expect(ma.started).toBeCloseTo(40, 0);
      expect(mb.started).toBeCloseTo(40, 0);
    }, { timeout: 3000, interval: 20 });

    // One leaves: the two left take half each.
    await close(c!);
    await vi.waitFor(() => expect(ma.started).toBeCloseTo(60, 0), { timeout: 3000, interval: 20 });
  });
});

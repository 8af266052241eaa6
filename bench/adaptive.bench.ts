/**
 * Finding the service's limit without tuning (issue 47): `ferry run` with a
 * ferry.yaml that sets neither `service.concurrency` nor
 * `maxRequestsPerSecond`, against the stand-in in four shapes of service:
 *
 * - 200 ms latency, token bucket 100/s (burst 10, Retry-After 1): bound 100/s
 * - 20 ms latency, token bucket 50/s (burst 10, Retry-After 1): bound 50/s
 * - 20 ms latency, serving 16 at a time, queueing past that: bound 800/s
 * - 300 ms latency, token bucket 300/s (burst 30, Retry-After 1): bound 300/s
 *
 * Each row's rate is the service's: record writes answered 201 per second,
 * from the first record request it saw to the last 201 (a slow start and
 * early 429s count). Beside it the share of requests answered 429, the most
 * requests the service had at once, and what ferry's summary says it settled
 * on. Then zero latency without a limit: ferry with the defaults ÷ ferry as
 * the push bench runs it (concurrency 16, ceiling 100,000: today's figures),
 * in alternating pairs of this one run, so that a shared machine's swings
 * fall on both.
 *
 * Then across processes: four `ferry run`s at once, one API key, against
 * one 100/s bucket at 20 ms, each with SQLite state of its own (nothing
 * shared: each finds the limit alone) and then sharing PostgreSQL state
 * (what one learns, the others start from and split): the service's rate
 * ÷ the bound and the 429 share of each.
 *
 * `BENCH_ONLY=adaptive npm run bench` runs these rows alone. Sizes:
 * BENCH_ADAPTIVE_SECONDS (default 15: rows = bound × seconds),
 * BENCH_ADAPTIVE_ZERO_ROWS (default 100000), BENCH_ADAPTIVE_ZERO_PAIRS (default 3; 0 leaves the zero-latency row out);
 * BENCH_ADAPTIVE_CASES (which of the four shapes, by number: `4` or `1,3`; default all);
 * BENCH_ADAPTIVE_PROCESSES=0 leaves the processes rows out, which need PostgreSQL at
 * FERRY_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { StandInMode } from '../test/support/stand-in/service.js';
import { dealsTarget, writeDealsCsv } from './support/deals.js';
import { ferryRun } from './support/ferry-cli.js';
import { withPushKit, type PushKit } from './support/push-kit.js';
import { judged, type BenchRow } from './support/rows.js';

const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PROCESSES = 4;
const SHARED_BUCKET: StandInMode = { kind: 'bucket', perSecond: 100, burst: 10, retryAfterSeconds: 1, latencyMs: 20 };

const seconds = Number(process.env.BENCH_ADAPTIVE_SECONDS ?? 15);
const zeroRows = Number(process.env.BENCH_ADAPTIVE_ZERO_ROWS ?? 100_000);
const zeroPairs = Number(process.env.BENCH_ADAPTIVE_ZERO_PAIRS ?? 3);
const caseNumbers = process.env.BENCH_ADAPTIVE_CASES?.split(',').map((n) => Number(n.trim()));
const withProcesses = process.env.BENCH_ADAPTIVE_PROCESSES !== '0';

interface Case {
  name: string;
  mode: StandInMode;
  bound: number;
  /** The service's parallel capacity, where it queues past one: in flight should stay within 4× it. */
  capacity?: number;
}

export const CASES: Case[] = [
  { name: '200 ms latency, bucket 100/s (burst 10, Retry-After 1)', mode: { kind: 'bucket', perSecond: 100, burst: 10, retryAfterSeconds: 1, latencyMs: 200 }, bound: 100 },
  { name: '20 ms latency, bucket 50/s', mode: { kind: 'bucket', perSecond: 50, burst: 10, retryAfterSeconds: 1, latencyMs: 20 }, bound: 50 },
  { name: '20 ms latency, serves 16 at a time', mode: { kind: 'queue', servers: 16, ms: 20 }, bound: 800, capacity: 16 },
  { name: '300 ms latency, bucket 300/s (burst 30)', mode: { kind: 'bucket', perSecond: 300, burst: 30, retryAfterSeconds: 1, latencyMs: 300 }, bound: 300 },
];

export function run(): Promise<BenchRow[]> {
  return withPushKit('adaptive', async (kit) => {
    const { standIn, csv, ferry: ferryRun } = kit;
    const out: BenchRow[] = [];
    const setting = (value: number | 'default') => (value === 'default' ? undefined : value);
    const ferry = (file: string, concurrency: number | 'default', ceiling: number | 'default') => ferryRun(file, { concurrency: setting(concurrency), maxRequestsPerSecond: setting(ceiling) });

    for (const [i, c] of CASES.entries()) {
      if (caseNumbers && !caseNumbers.includes(i + 1)) continue;
      const n = Math.round(c.bound * seconds);
      const file = await csv(n);
      await standIn.mode(c.mode);
      const result = await ferry(file, 'default', 'default');
      const { stats, records } = await standIn.stats();
      if (records !== n) throw new Error(`${c.name}: ${records} of ${n} records landed`);
      out.push({ name: `${c.name}: service rate ÷ its bound (defaults)`, value: +((await standIn.serviceRate()) / c.bound).toFixed(3), goal: '≥ 0.9' });
      out.push({ name: `${c.name}: 429 share`, value: +(stats.throttled / Math.max(1, stats.requests)).toFixed(3), goal: '≤ 0.03' });
      out.push({
        name: `${c.name}: most requests at the service at once${c.capacity ? ` (capacity ${c.capacity})` : ''}`,
        value: stats.maxInFlight,
        ...(c.capacity ? { goal: `≤ ${c.capacity * 4}` } : {}),
      });
      const limits = result.limits;
      out.push({ name: `${c.name}: ferry settled on (concurrency; rate /s; why)`, value: limits ? `${limits.concurrency}; ${limits.rate ?? '-'}; ${limits.concurrencyReason}/${limits.rateReason}` : 'none' });
    }

    // Zero latency, no limit: the defaults against today's figures (c16, a ceiling that never binds), alternating.
    if (zeroPairs > 0) {
      const zero = await csv(zeroRows);
      const ratios: number[] = [];
      for (let pair = 0; pair < zeroPairs; pair++) {
        await standIn.mode({ kind: 'instant' });
        await ferry(zero, 'default', 'default');
        const adaptive = await standIn.writeRate();
        await standIn.mode({ kind: 'instant' });
        await ferry(zero, 16, 100_000);
        ratios.push(adaptive / (await standIn.writeRate()));
      }
      ratios.sort((a, b) => a - b);
      out.push({
        name: `zero latency: defaults ÷ c16 ceiling 100000 (${zeroRows} rows; median of ${zeroPairs} pairs, ${ratios[0]!.toFixed(2)}-${ratios.at(-1)!.toFixed(2)})`,
        value: +ratios[Math.floor(ratios.length / 2)]!.toFixed(3),
        goal: '≥ 0.95',
      });
    }
    if (withProcesses) out.push(...(await processes(kit, 'sqlite')), ...(await processes(kit, 'postgres')));
    return judged(out);
  });
}

/**
 * PROCESSES `ferry run`s at once, one key, one 100/s bucket: each its own
 * sync, CSV and project, on SQLite state of its own or one PostgreSQL state.
 */
async function processes(kit: PushKit, state: 'sqlite' | 'postgres'): Promise<BenchRow[]> {
  const label = `${PROCESSES} processes, one key, bucket 100/s at 20 ms, ${state === 'sqlite' ? 'SQLite state each (nothing shared)' : 'one PostgreSQL state (learnt rate shared)'}`;
  const schema = `ferry_adaptive_${randomBytes(4).toString('hex')}`;
  const each = Math.round((SHARED_BUCKET.kind === 'bucket' ? SHARED_BUCKET.perSecond : 0) * seconds / PROCESSES);
  const projects: { dir: string; file: string }[] = [];
  for (let p = 0; p < PROCESSES; p++) {
    const dir = mkdtempSync(join(kit.dir, `shared-${state}-`));
    const csv = join(dir, 'deals.csv');
    await writeDealsCsv(csv, each, `P${p}D`);
    const stateYaml = state === 'sqlite' ? '{ url: "sqlite:state/ferry.db" }' : `{ url: "${PG_URL}", schema: ${schema} }`;
    writeFileSync(join(dir, 'ferry.yaml'), `version: 1
service: { baseUrl: ${kit.standIn.url}, apiKey: bench-shared-key }
state: ${stateYaml}
syncs:
  - name: deals-${p}
    source: { type: csv, path: ${JSON.stringify(csv)}, primaryKey: opportunity_id }
${dealsTarget(`crm-${p}`)}`);
    projects.push({ dir, file: 'ferry.yaml' });
  }
  try {
    await kit.standIn.mode(SHARED_BUCKET);
    const runs = await Promise.all(projects.map(({ dir, file }) => ferryRun(dir, file)));
    const failed = runs.find((r) => r.status !== 'succeeded');
    if (failed) throw new Error(`${label}: a run ${failed.status}: ${failed.error ?? ''}`);
    const { stats, records } = await kit.standIn.stats();
    if (records !== each * PROCESSES) throw new Error(`${label}: ${records} of ${each * PROCESSES} records landed`);
    return [
      { name: `${label}: service rate ÷ its bound`, value: +((await kit.standIn.serviceRate()) / 100).toFixed(3), goal: '≥ 0.9' },
      { name: `${label}: 429 share`, value: +(stats.throttled / Math.max(1, stats.requests)).toFixed(3), ...(state === 'postgres' ? { goal: '≤ 0.03' } : {}) },
    ];
  } finally {
    if (state === 'postgres') {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
}

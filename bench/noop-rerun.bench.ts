/**
 * Unchanged records at parse speed: a no-op re-run of a CSV sync (every
 * record already acknowledged, nothing changed) through `ferry run`, against
 * a plain streaming csv-parse of the same file. The ledger is seeded by a
 * real first run into the stand-in service (zero latency); a no-op run sends
 * no record request. The re-run's time is the sync's own (ferry's summary:
 * process start-up left out, it is the push rows' figure); its CPU is the
 * whole process's. Parse and re-run alternate three times; each figure is
 * the median. Also the same rows as JSON lines (against readline +
 * JSON.parse) and with random UUID ids (every ledger look-up on another page).
 *
 * BENCH_NOOP_ROWS (default 200000).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { StandIn } from '../test/support/stand-in/client.js';
import { dealsTarget, writeDealsCsv } from './support/deals.js';
import { ferryRun } from './support/ferry-cli.js';
import { median } from './support/rows.js';

/** Rounds of (parse, no-op re-run) per figure. */
const ROUNDS = 3;

/** A UUID-shaped id for row i: random-looking, the same on every bench run. */
function uuidOf(i: number): string {
  const hex = createHash('md5').update(String(i)).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function writeJsonl(csvPath: string, path: string): Promise<void> {
  const out = createWriteStream(path);
  for await (const row of createReadStream(csvPath).pipe(parse({ columns: true }))) {
    if (!out.write(`${JSON.stringify(row)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

/** The baseline: every record of the file parsed into an object, streaming. */
async function plainParse(path: string): Promise<void> {
  let n = 0;
  for await (const _record of createReadStream(path).pipe(parse({ columns: true }))) n++;
  if (n === 0) throw new Error('parsed nothing');
}

/** The jsonl baseline: readline over the file, JSON.parse per line. */
async function plainJsonl(path: string): Promise<void> {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (line.length > 0 && JSON.parse(line) !== undefined) n++;
  }
  if (n === 0) throw new Error('parsed nothing');
}

interface Timing {
  wallMs: number;
  cpuUs: number;
}

async function timed(fn: () => Promise<void>): Promise<Timing> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuUs: used.user + used.system };
}

export async function run(rows = Number(process.env.BENCH_NOOP_ROWS ?? 200_000)): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-noop-bench-'));
  const standIn = await StandIn.start();
  try {
    await writeDealsCsv(join(dir, 'deals.csv'), rows);
    await writeDealsCsv(join(dir, 'deals-uuid.csv'), rows, '', uuidOf);
    await writeJsonl(join(dir, 'deals.csv'), join(dir, 'deals.jsonl'));
    const config = join(dir, 'ferry.yaml');
    writeFileSync(
      config,
      `version: 1
service: { baseUrl: ${standIn.url}, apiKey: bench-key, concurrency: 32, maxRequestsPerSecond: 1000000 }
state: { url: "sqlite:state/ferry.db" }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: opportunity_id }
${dealsTarget('crm')}  - name: deals-jsonl
    source: { type: jsonl, path: deals.jsonl, primaryKey: opportunity_id }
${dealsTarget('crm-jsonl')}  - name: deals-uuid
    source: { type: csv, path: deals-uuid.csv, primaryKey: opportunity_id }
${dealsTarget('crm-uuid')}`,
    );
    await standIn.mode({ kind: 'instant' });
    /** Seeds `name`'s ledger with a first run, then alternates parse and no-op re-run. */
    const noopRun = async (name: string, baseline: () => Promise<void>) => {
      process.stderr.write(`noop-rerun bench: first run of ${name}, ${rows} rows\n`);
      const first = await ferryRun(dir, config, { args: [name] });
      if (first.status !== 'succeeded') throw new Error(`first run of ${name} ${first.status}: ${first.error ?? ''}`);
      const parsed: Timing[] = [];
      const noop: Timing[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        parsed.push(await timed(baseline));
        const again = await ferryRun(dir, config, { args: [name] });
        if (again.counts.unchanged !== rows) throw new Error(`no-op run of ${name} found ${again.counts.unchanged} of ${rows} unchanged`);
        noop.push({ wallMs: again.durationMs, cpuUs: again.cpuUs });
      }
      const pick = (list: Timing[], key: keyof Timing) => median(list.map((t) => t[key]));
      return { parsed: { wallMs: pick(parsed, 'wallMs'), cpuUs: pick(parsed, 'cpuUs') }, noop: { wallMs: pick(noop, 'wallMs'), cpuUs: pick(noop, 'cpuUs') } };
    };
    const { parsed, noop } = await noopRun('deals', () => plainParse(join(dir, 'deals.csv')));
    // JSON.parse is about twice as fast as csv-parse, so ferry's own work per unchanged record (the same for both
    // formats) weighs twice as much here: no goal row, shown so that it is seen.
    const jsonl = await noopRun('deals-jsonl', () => plainJsonl(join(dir, 'deals.jsonl')));
    // Ids in random order, as UUIDs and hashes are: every ledger look-up lands on another page.
    const uuid = await noopRun('deals-uuid', () => plainParse(join(dir, 'deals-uuid.csv')));
    return {
      [`no-op re-run ÷ streaming csv-parse (${rows} rows, goal ≤ 2)`]: +(noop.wallMs / parsed.wallMs).toFixed(2),
      'no-op re-run ÷ streaming csv-parse, CPU time (ferry: whole process)': +(noop.cpuUs / parsed.cpuUs).toFixed(2),
      'no-op re-run: unchanged records/s': Math.round((rows * 1000) / noop.wallMs),
      'streaming csv-parse: records/s': Math.round((rows * 1000) / parsed.wallMs),
      'jsonl no-op re-run ÷ readline + JSON.parse': +(jsonl.noop.wallMs / jsonl.parsed.wallMs).toFixed(2),
      'jsonl no-op re-run ÷ readline + JSON.parse, CPU time': +(jsonl.noop.cpuUs / jsonl.parsed.cpuUs).toFixed(2),
      'no-op re-run, random UUID ids ÷ streaming csv-parse': +(uuid.noop.wallMs / uuid.parsed.wallMs).toFixed(2),
      'no-op re-run, random UUID ids ÷ ids in order': +(uuid.noop.wallMs / noop.wallMs).toFixed(2),
    };
  } finally {
    standIn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Export speed. postgres-table: 100k deal-like records written through the
 * destination in batches of its batchSize, as `ferry export` writes them,
 * against one raw COPY of the same rows into the same emptied table; the
 * ratio raw time / export time is the target (≥ 0.5). The first export finds
 * no key in the table and COPYs straight in; the re-export of the same rows
 * finds every key and goes through the staging table and the merge, which
 * is reported beside it. Export reads: see emulatorConversations(). `npx tsx bench/export.bench.ts` prints the figures.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { ferryEmulator, ferryExport } from './support/ferry-cli.js';
import postgresTable from '../connectors/destinations/postgres-table/index.js';
import { copyRows } from '../connectors/destinations/postgres-table/copy.js';

const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000);
/** What `ferry export` writes per batch to this destination. */
const BATCH = postgresTable.batchSize ?? 500;

function deal(i: number): Record<string, unknown> {
  return {
    dealId: `D-${i}`,
    name: `Deal ${i}\twith a tab`,
    stage: ['Prospecting', 'Engaging', 'Won', 'Lost'][i % 4],
    amount: 1000 + (i % 997) + 0.5,
    closed: i % 4 >= 2,
    lastActivityDate: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    owner: { name: `Owner ${i % 40}`, email: `owner${i % 40}@example.com` },
  };
}

async function seconds(fn: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Raw COPY vs the destination, into the same freshly emptied table. */
export async function postgresCopyRatio(rows = ROWS): Promise<Record<string, number>> {
  const schema = `ferry_bench_export_${process.pid}`;
  const records = Array.from({ length: rows }, (_, i) => deal(i));
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; CREATE SCHEMA "${schema}"`);
    const ctx = { options: postgresTable.options.parse({ url: PG_URL, schema, table: 'deals' }), baseDir: process.cwd(), syncName: 'bench', logger: silent, signal: new AbortController().signal };
    // A first batch creates the table and its unique key index, so both runs meet the same table.
    const setup = await postgresTable.open(ctx);
    await setup.write({ stream: 'deals', key: 'dealId', records: records.slice(0, 1) });
    await setup.close();
    const table = `"${schema}".deals`;
    const types = await admin.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'deals' ORDER BY ordinal_position`,
      [schema],
    );
    const names = types.rows.map((r) => r.column_name);

    const fresh = async (load: () => Promise<void>) => {
      await admin.query(`TRUNCATE ${table}`);
      return seconds(load);
    };
    const rawCopy = () => copyRows(admin, table, names, types.rows.map((r) => r.data_type), records);
    const viaExport = async () => {
      const writer = await postgresTable.open(ctx);
      for (let i = 0; i < records.length; i += BATCH) {
        await writer.write({ stream: 'deals', key: 'dealId', records: records.slice(i, i + BATCH) });
      }
      await writer.close();
    };
    // Best of two each, interleaved: the machine is shared and one slow moment should not decide the ratio.
    let raw = Infinity;
    let exported = Infinity;
    let merged = Infinity;
    for (let round = 0; round < 2; round++) {
      raw = Math.min(raw, await fresh(rawCopy));
      exported = Math.min(exported, await fresh(viaExport));
      // The same rows again: every key exists, so every batch goes through the staging table and the merge.
      merged = Math.min(merged, await seconds(viaExport));
    }
    const counted = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    if (counted.rows[0]!.n !== rows) throw new Error(`expected ${rows} rows, found ${counted.rows[0]!.n}`);
    return {
      [`postgres-table: raw COPY rows/s (${rows})`]: Math.round(rows / raw),
      [`postgres-table: export rows/s (${rows}, batches of ${BATCH})`]: Math.round(rows / exported),
      'postgres-table: export speed / raw COPY speed (target ≥ 0.5)': +(raw / exported).toFixed(3),
      [`postgres-table: re-export rows/s (${rows}, every key exists: staging + merge)`]: Math.round(rows / merged),
      'postgres-table: re-export (merge) speed / raw COPY speed': +(raw / merged).toFixed(3),
    };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await admin.end();
  }
}

/** A conversation as the emulator's seed takes it, with a 20-line transcript. */
function seededConversation(i: number) {
  const start = Date.UTC(2024, 0, 1) + i * 600_000;
  return {
    remoteId: `call-${i}`,
    title: `Call ${i}`,
    startTime: new Date(start).toISOString(),
    participants: [{ name: 'Agent', email: 'agent@example.com' }, { name: `Customer ${i}`, email: `c${i}@example.org` }],
    transcript: Array.from({ length: 20 }, (_, k) => ({ speaker: k % 2 ? `Customer ${i}` : 'Agent', text: `sentence ${k} of call ${i}`, startTime: k * 6, endTime: k * 6 + 5 })),
  };
}

/**
 * 10,000 conversations with transcripts exported from `ferry emulator` (a
 * process of its own, seeded from a file) by `ferry export` (`details: true`,
 * one detail request each) into DuckDB in relational shape, with the
 * service's defaults (adaptive concurrency, no rate ceiling).
 */
export async function emulatorConversations(count = Number(process.env.BENCH_EXPORT_CONVERSATIONS ?? 10_000)): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-bench-export-'));
  const seed = join(dir, 'seed.json');
  writeFileSync(seed, JSON.stringify({ conversations: Array.from({ length: count }, (_, i) => seededConversation(i)) }));
  const emulator = await ferryEmulator(join(dir, 'emulator.db'), ['--seed', seed]);
  try {
    writeFileSync(join(dir, 'ferry.yaml'), `version: 1
service: { baseUrl: ${emulator.url}, apiKey: ${emulator.apiKey} }
state: { url: "sqlite:state.db" }
exports:
  - name: calls
    resource: conversations
    details: true
    destination: { type: duckdb, path: warehouse.duckdb, table: conversations, shape: relational }
`);
    const summary = await ferryExport(dir, 'ferry.yaml');
    if (summary.status !== 'succeeded' || summary.exported !== count) throw new Error(`export ${summary.status}: ${summary.error ?? `${summary.exported} of ${count}`}`);
    return {
      [`emulator → duckdb: conversations/s with transcripts (${count}, ferry export's own time, defaults)`]: Math.round(count / (summary.durationMs / 1000)),
      'emulator → duckdb: ferry export process peak RSS MB': Math.round(summary.peakRssMb),
    };
  } finally {
    emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Record<string, number>> {
  return { ...(await postgresCopyRatio()), ...(await emulatorConversations()) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [name, value] of Object.entries(await run())) console.log(`${name}  ${value}`);
}

/**
 * Streaming reads of the postgres source: a 100k-row and a 1M-row table
 * (generate_series on the local server, database `test`), read in full
 * through the connector's server-side cursor, incrementally by
 * (updated_at, id). Reports rows/s and the peak RSS growth over the read;
 * memory that stays flat from 100k to 1M rows shows the read is bounded.
 * `npx tsx bench/databases.bench.ts` prints the figures.
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import source from '../connectors/sources/postgres/index.js';

const URL_ = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function readAll(table: string): Promise<{ rows: number; seconds: number; peakRssDeltaMb: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let rows = 0;
  const started = process.hrtime.bigint();
  const records = source.read({
    options: source.options.parse({ url: URL_, table, primaryKey: 'id', fetchSize: 1000 }),
    baseDir: process.cwd(),
    syncName: 'bench',
    logger: silent,
    signal: new AbortController().signal,
    incremental: { cursorField: 'updated_at' },
  });
  for await (const record of records) {
    if (record.cursor === undefined) throw new Error('record without a cursor');
    if (++rows % 5000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rows, seconds, peakRssDeltaMb: Math.round(((peak - baseline) / 1024 / 1024) * 10) / 10 };
}

export async function run(): Promise<Record<string, number>> {
  const admin = new pg.Client({ connectionString: URL_ });
  await admin.connect();
  const results: Record<string, number> = {};
  try {
    for (const size of [100_000, 1_000_000]) {
      const table = `ferry_bench_${size}_${process.pid}`;
      await admin.query(`DROP TABLE IF EXISTS ${table}`);
      await admin.query(
        `CREATE TABLE ${table} AS
           SELECT i::bigint AS id, 'deal ' || i AS name, (i % 100000)::numeric(12,2) / 7 AS amount,
                  timestamptz '2024-01-01' + (i / 3) * interval '1 millisecond' + (i % 7) * interval '1 microsecond' AS updated_at
             FROM generate_series(1, ${size}) i`,
      );
      await admin.query(`ALTER TABLE ${table} ADD PRIMARY KEY (id)`);
      await admin.query(`CREATE INDEX ON ${table} (updated_at, id)`);
      await admin.query(`ANALYZE ${table}`);
      try {
        const { rows, seconds, peakRssDeltaMb } = await readAll(table);
        if (rows !== size) throw new Error(`read ${rows} of ${size} rows`);
        const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
        results[`postgres ${label} rows: rows/s`] = Math.round(rows / seconds);
        results[`postgres ${label} rows: peak RSS delta MB`] = peakRssDeltaMb;
      } finally {
        await admin.query(`DROP TABLE IF EXISTS ${table}`);
      }
    }
  } finally {
    await admin.end();
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [name, value] of Object.entries(await run())) console.log(`${name.padEnd(44)} ${value}`);
}

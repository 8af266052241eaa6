/**
 * `ferry export` killed with SIGKILL in the middle of a sliced read, then run
 * again: the destination holds every record once, as psql (PostgreSQL's own
 * client) and a DuckDB connection of its own count them; under
 * `deletes: soft`, the records the service stopped listing are stamped once.
 */
import { spawn, execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_RESOURCES } from '../../src/sdk/index.js';
import { duckRows } from '../helpers/duckdb.js';
import { dropSchemas, freshSchema, PG_URL, postgresReachable } from '../helpers/postgres.js';
import { ListStandIn, standInConversation } from '../support/list-stand-in.js';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const COUNT = 1000;
const pgAvailable = await postgresReachable();
const schema = freshSchema('ferry_kill');
afterAll(() => dropSchemas(schema));

function psql(sql: string): string {
  return execFileSync('psql', [PG_URL, '-At', '-c', sql], { encoding: 'utf8' }).trim();
}

/** The conversations list, 5 ms a page: all COUNT calls, or those given. */
function callsStandIn(items: Record<string, unknown>[] = Array.from({ length: COUNT }, (_, i) => standInConversation(i))): ListStandIn {
  return new ListStandIn({ items, window: SERVICE_RESOURCES.conversations.window!, itemsKey: 'conversations', bounds: 'inclusive', order: 'time', delayMs: 5 });
}

/** `ferry export` in `dir`, killed with SIGKILL once the stand-in has answered `pages` requests; returns how many it had. */
async function exportKilledAfter(dir: string, standIn: ListStandIn, pages: number): Promise<number> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../bin/ferry.js'), 'export'], { cwd: dir, stdio: 'ignore', env: { ...process.env, FERRY_BASE_URL: '', FERRY_API_KEY: '' } });
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  const started = Date.now();
  while (standIn.queries.length < pages && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 5));
  child.kill('SIGKILL');
  await exited;
  return standIn.queries.length;
}

/** `dir`'s ferry.yaml: the stand-in at `url`, SQLite state, and these exports (YAML list items). */
function writeProject(dir: string, url: string, exportItems: string): void {
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${url}, apiKey: sk_live_kill_test, concurrency: 8 }
state: { url: sqlite:state/ferry.db }
exports:
${exportItems}`,
  );
}

describe.skipIf(!pgAvailable)('ferry export after kill -9', () => {
  it('re-runs into exact tables: every record once in PostgreSQL and DuckDB', async () => {
    const dir = tempProjectDir('ferry-e2e-export-kill-');
    const standIn = callsStandIn();
    const server = await standIn.listen('/v1/conversations');
    try {
      writeFileSync(
        join(dir, 'ferry.yaml'),
        `version: 1
service: { baseUrl: ${server.url}, apiKey: sk_live_kill_test, concurrency: 8 }
state: { url: sqlite:state/ferry.db }
exports:
  - name: calls-pg
    resource: conversations
    naming: api
    metadata: false
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: calls }
  - name: calls-duckdb
    resource: conversations
    naming: api
    metadata: false
    destination: { type: duckdb, path: out/warehouse.duckdb, table: calls }
  - name: calls-analyst
    resource: conversations
    deletes: soft
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: calls_analyst }
`,
      );
      // Kill the first run once the stand-in has answered some pages of the first export.
      expect(await exportKilledAfter(dir, standIn, 12)).toBeGreaterThanOrEqual(12);

      const result = await ferry(['export', '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      const report = jsonOf(result) as { exports: { export: string; status: string; exported: number }[] };
      expect(report.exports.map((e) => [e.export, e.status, e.exported])).toEqual([
        ['calls-pg', 'succeeded', COUNT],
        ['calls-duckdb', 'succeeded', COUNT],
        ['calls-analyst', 'succeeded', COUNT],
      ]);
      // The analyst layout (snake_case, load metadata, deletes: soft), run after the killed one: every record once, live, from one completed load.
      expect(psql(`SELECT count(*), count(DISTINCT conversation_id), count(_ferry_deleted_at), count(DISTINCT _ferry_load_id) FROM "${schema}".calls_analyst`)).toBe(`${COUNT}|${COUNT}|0|1`);
      expect(psql(`SELECT count(*), sum(records_written) FROM "${schema}"._ferry_loads`)).toBe(`1|${COUNT}`);
      expect(psql(`SELECT count(*), count(DISTINCT "conversationId") FROM "${schema}".calls`)).toBe(`${COUNT}|${COUNT}`);
      expect(await duckRows(join(dir, 'out/warehouse.duckdb'), 'SELECT count(*)::INTEGER AS n, count(DISTINCT conversationId)::INTEGER AS ids FROM calls')).toEqual([{ n: COUNT, ids: COUNT }]);
    } finally {
      await server.close();
    }
  });

  it('deletes: soft, killed half-way through the run that finds deletions and run again: every record once, the deleted ones stamped once', async () => {
    const dir = tempProjectDir('ferry-e2e-export-kill-soft-');
    const gone = (i: number) => i % 10 === 3;
    const DELETED = Array.from({ length: COUNT }, (_, i) => i).filter(gone).length;
    const configure = (url: string) =>
      writeProject(
        dir,
        url,
        `  - name: soft-duckdb
    resource: conversations
    deletes: soft
    destination: { type: duckdb, path: out/soft.duckdb, table: calls }
  - name: soft-pg
    resource: conversations
    deletes: soft
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: calls_soft }
`,
      );
    // A first complete run writes every record.
    const all = callsStandIn();
    const first = await all.listen('/v1/conversations');
    try {
      configure(first.url);
      const result = await ferry(['export', '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
    } finally {
      await first.close();
    }
    // Then the service no longer lists a tenth of them; the run that would stamp them is killed while it reads.
    const kept = callsStandIn(Array.from({ length: COUNT }, (_, i) => i).filter((i) => !gone(i)).map(standInConversation));
    const second = await kept.listen('/v1/conversations');
    try {
      configure(second.url);
      expect(await exportKilledAfter(dir, kept, 12)).toBeGreaterThanOrEqual(12);

      const result = await ferry(['export', '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      const report = jsonOf(result) as { exports: { export: string; status: string; exported: number; counts?: { deleted?: number } }[] };
      expect(report.exports.map((e) => [e.export, e.status])).toEqual([['soft-duckdb', 'succeeded'], ['soft-pg', 'succeeded']]);
      // A run after that finds nothing more to stamp: the stamps stay the first ones.
      const again = await ferry(['export', '--json'], { cwd: dir });
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await second.close();
    }
    const live = COUNT - DELETED;
    const modulo = (column: string) => `(CAST(substr(${column}, 6) AS INTEGER) % 10 = 3)`;
    expect(
      psql(
        `SELECT count(*), count(DISTINCT conversation_id), count(_ferry_deleted_at), count(DISTINCT _ferry_deleted_at), ` +
          `count(*) FILTER (WHERE _ferry_deleted_at IS NOT NULL AND ${modulo('title')}), count(*) FILTER (WHERE _ferry_deleted_at IS NULL AND NOT ${modulo('title')}) FROM "${schema}".calls_soft`,
      ),
    ).toBe(`${COUNT}|${COUNT}|${DELETED}|1|${DELETED}|${live}`);
    expect(psql(`SELECT sum(records_deleted) FROM "${schema}"._ferry_loads WHERE export_name = 'soft-pg'`)).toBe(String(DELETED));
    const rows = await duckRows(
      join(dir, 'out/soft.duckdb'),
      `SELECT count(*)::INTEGER AS n, count(DISTINCT conversation_id)::INTEGER AS ids, count(_ferry_deleted_at)::INTEGER AS stamped, count(DISTINCT _ferry_deleted_at)::INTEGER AS stamps,
              count(*) FILTER (_ferry_deleted_at IS NOT NULL AND ${modulo('title')})::INTEGER AS right_ones, count(*) FILTER (_ferry_deleted_at IS NULL AND NOT ${modulo('title')})::INTEGER AS live,
              (SELECT sum(records_deleted)::INTEGER FROM _ferry_loads) AS loads_deleted
       FROM calls`,
    );
    expect(rows).toEqual([{ n: COUNT, ids: COUNT, stamped: DELETED, stamps: 1, right_ones: DELETED, live, loads_deleted: DELETED }]);
  }, 150_000);

  it('deletes: soft on an appended JSON Lines file, killed half-way and run again: the last line per key is every record, the deleted ones stamped once', async () => {
    const dir = tempProjectDir('ferry-e2e-export-kill-jsonl-');
    const gone = (i: number) => i % 10 === 3;
    const exportTo = (url: string) =>
      writeProject(
        dir,
        url,
        `  - name: soft-jsonl
    resource: conversations
    deletes: soft
    destination: { type: file, path: out/calls.jsonl, mode: append }
`,
      );
    const runs: { deleted?: number }[] = [];
    const complete = async () => {
      const result = await ferry(['export', '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      runs.push((jsonOf(result) as { exports: { counts: { deleted?: number } }[] }).exports[0]!.counts);
    };
    const first = await callsStandIn().listen('/v1/conversations');
    try {
      exportTo(first.url);
      await complete();
    } finally {
      await first.close();
    }
    const kept = callsStandIn(Array.from({ length: COUNT }, (_, i) => i).filter((i) => !gone(i)).map(standInConversation));
    const second = await kept.listen('/v1/conversations');
    try {
      exportTo(second.url);
      expect(await exportKilledAfter(dir, kept, 12)).toBeGreaterThanOrEqual(12);
      await complete();
      await complete();
    } finally {
      await second.close();
    }
    const deleted = Array.from({ length: COUNT }, (_, i) => i).filter(gone).length;
    expect(runs.map((counts) => counts.deleted)).toEqual([0, deleted, 0]);
    // DuckDB reads the file itself; the newest line per key is the record's state.
    const newest = `SELECT * FROM read_json('${join(dir, 'out/calls.jsonl')}', format = 'newline_delimited') QUALIFY row_number() OVER (PARTITION BY conversation_id ORDER BY _ferry_loaded_at DESC) = 1`;
    const rows = await duckRows(
      ':memory:',
      `SELECT count(*)::INTEGER AS ids, count(_ferry_deleted_at)::INTEGER AS stamped, count(DISTINCT _ferry_deleted_at)::INTEGER AS stamps,
              count(*) FILTER (_ferry_deleted_at IS NOT NULL AND CAST(substr(title, 6) AS INTEGER) % 10 = 3)::INTEGER AS right_ones
       FROM (${newest})`,
    );
    expect(rows).toEqual([{ ids: COUNT, stamped: deleted, stamps: 1, right_ones: deleted }]);
  }, 150_000);

  it('an appended gzipped JSON Lines file, its first run and a later one killed after writing part of it: one gzip stream, each finished run\'s records once', async () => {
    const dir = tempProjectDir('ferry-e2e-export-kill-gz-');
    const out = join(dir, 'out/calls.jsonl.gz');
    // 3,000 calls at 40 ms a page: the run is still reading well after its first batch of 500 is on disk.
    const slow = new ListStandIn({ items: Array.from({ length: 3 * COUNT }, (_, i) => standInConversation(i)), window: SERVICE_RESOURCES.conversations.window!, itemsKey: 'conversations', bounds: 'inclusive', order: 'time', delayMs: 40 });
    const server = await slow.listen('/v1/conversations');
    const exportOnce = async () => {
      const result = await ferry(['export', '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
    };
    /** `ferry export`, killed with SIGKILL once the file has grown past `finished` bytes (its first batch is on disk). */
    const killedOnceWritten = async (finished: number) => {
      const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../bin/ferry.js'), 'export'], { cwd: dir, stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolveExit) => child.once('exit', (_code, signal) => resolveExit(signal)));
      const started = Date.now();
      const size = () => statSync(out, { throwIfNoEntry: false })?.size ?? 0;
      while (size() <= finished && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 2));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(size()).toBeGreaterThan(finished);
    };
    try {
      writeProject(dir, server.url, `  - name: calls-gz\n    resource: conversations\n    destination: { type: file, path: out/calls.jsonl.gz, mode: append }\n`);
      await killedOnceWritten(0);
      await exportOnce();
      await killedOnceWritten(statSync(out).size);
      await exportOnce();
    } finally {
      await server.close();
    }
    // Python's gzip reads every member as one stream; each call once per finished run, from two loads.
    const counted = execFileSync(
      'python3',
      ['-c', 'import gzip,json,sys,collections; rows=[json.loads(l) for l in gzip.open(sys.argv[1],"rt")]; c=collections.Counter(r["conversation_id"] for r in rows); print(len(rows), len(c), set(c.values()), len({r["_ferry_load_id"] for r in rows}))', out],
      { encoding: 'utf8' },
    ).trim();
    expect(counted).toBe(`${6 * COUNT} ${3 * COUNT} {2} 2`);
  }, 120_000);

  it('an incremental scan of changes killed midway commits no fingerprint: the re-run writes everything once, the next run nothing', async () => {
    const dir = tempProjectDir('ferry-e2e-export-kill-scan-');
    const standIn = callsStandIn();
    const server = await standIn.listen('/v1/conversations');
    try {
      writeFileSync(
        join(dir, 'ferry.yaml'),
        `version: 1
service: { baseUrl: ${server.url}, apiKey: sk_live_kill_test, concurrency: 8 }
state: { url: sqlite:state/ferry.db }
exports:
  - name: calls-scan
    resource: conversations
    incremental: { cursor: startTime }
    deletes: soft
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: calls_scan }
`,
      );
      await exportKilledAfter(dir, standIn, 12);

      type Report = { exports: { status: string; exported: number; counts: { created: number; updated: number; unchanged: number } }[] };
      const again = await ferry(['export', '--json'], { cwd: dir });
      expect(again.code, again.stderr).toBe(0);
      expect((jsonOf(again) as Report).exports[0]).toMatchObject({ status: 'succeeded', exported: COUNT, counts: { created: COUNT, updated: 0, unchanged: 0 } });
      const load = psql(`SELECT load_id FROM "${schema}"._ferry_loads WHERE export_name = 'calls-scan'`);
      const next = await ferry(['export', '--json'], { cwd: dir });
      expect((jsonOf(next) as Report).exports[0]).toMatchObject({ status: 'succeeded', exported: 0, counts: { created: 0, updated: 0, unchanged: COUNT } });
      expect(psql(`SELECT count(*), count(DISTINCT conversation_id), count(_ferry_deleted_at), count(*) FILTER (WHERE _ferry_load_id = '${load}') FROM "${schema}".calls_scan`)).toBe(`${COUNT}|${COUNT}|0|${COUNT}`);
      expect(psql(`SELECT records_inserted, records_unchanged FROM "${schema}"._ferry_loads WHERE export_name = 'calls-scan' ORDER BY finished_at`)).toBe(`${COUNT}|0\n0|${COUNT}`);
    } finally {
      await server.close();
    }
  });
});

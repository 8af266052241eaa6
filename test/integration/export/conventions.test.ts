/**
 * The analyst conventions end to end against the emulator, read back by
 * readers that are not ferry's: Python's sqlite3, psql and a DuckDB
 * connection of the test's own. A new export writes snake_case names, load
 * metadata on every table, a `_ferry_loads` row per run, and with
 * `deletes: soft` keeps a deleted record with its `_ferry_deleted_at`. An
 * export that ran before layouts were recorded keeps the service's names.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { duckRows } from '../../helpers/duckdb.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config/index.js';
import type { LoadedConfig } from '../../../src/config/index.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { exportStateKey, inspectExport, runExport } from '../../../src/export/index.js';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { tempDir } from '../../unit/export/helpers.js';
import { dropSchemas, freshSchema, PG_URL, postgresReachable } from '../../helpers/postgres.js';

const pgAvailable = await postgresReachable();
const schema = freshSchema('ferry_conv');
const logger = pino({ level: 'silent' });
const T0 = Date.parse('2024-03-01T09:00:00Z');
const CALLS = 12;
const ROWS = 9;

let emu: RunningEmulator;
let client: ServiceClient;
let sourceId: string;
let dir: string;
let config: LoadedConfig;
let store: StateStore;

async function run(name: string) {
  const exp = config.exports.find((e) => e.name === name)!;
  const { prepared, issues } = await inspectExport(config, exp);
  expect(issues).toEqual([]);
  return runExport(prepared!, { store, service: client }, { signal: new AbortController().signal, logger, batchSize: 5 });
}

/** Python's sqlite3 module, rows as JSON. */
function python(file: string, sql: string): unknown[][] {
  const script = 'import json,sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nprint(json.dumps(c.execute(sys.argv[2]).fetchall()))';
  return JSON.parse(execFileSync('python3', ['-c', script, file, sql], { encoding: 'utf8' })) as unknown[][];
}

function psql(sql: string): string {
  return execFileSync('psql', [PG_URL, '-At', '-F', '|', '-c', sql], { encoding: 'utf8' }).trim();
}

function duck(sql: string, file = 'out/warehouse.duckdb'): Promise<Record<string, unknown>[]> {
  return duckRows(file === ':memory:' ? file : join(dir, file), sql);
}

beforeAll(async () => {
  emu = await startEmulator({ db: ':memory:' });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.devKey ?? '', concurrency: 4, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  sourceId = (await client.createSource({ name: 'calls', displayName: 'Calls' })).id;
  for (let i = 0; i < CALLS; i++) {
    await client.createConversation({
      id: `call-${i}`, sourceId, public: true, createdAt: T0 + i * 60_000, startedAt: T0 + i * 60_000, displayName: `Call ${i}`,
      participants: [{ id: 'agent', name: 'Agent' }, { email: `customer${i}@example.com` }],
      transcript: [
        { speakerName: 'Agent', text: `Hello ${i}`, timestamp: T0 + i * 60_000 + 1000 },
        { speakerName: 'Customer', text: 'Grüße 👋', timestamp: T0 + i * 60_000 + 4000 },
      ],
    });
  }
  const crm = (await client.createSource({ name: 'crm', displayName: 'CRM' })).id;
  const fieldDefinitions = [
    { name: 'amount', fieldType: 'double' as const },
    { name: 'seats', fieldType: 'int' as const },
    { name: 'won', fieldType: 'boolean' as const },
    { name: 'closeDate', fieldType: 'date' as const },
    { name: 'note', fieldType: 'string' as const },
  ];
  const deal = await client.createObjectType({ sourceId: crm, name: 'deal', displayName: 'Deal', fieldDefinitions });
  const ticket = await client.createObjectType({ sourceId: crm, name: 'Support Ticket', displayName: 'Ticket', fieldDefinitions });
  for (let i = 0; i < ROWS; i++) {
    const type = i % 3 === 0 ? ticket : deal;
    await client.createRow({
      id: `row-${i}`, sourceId: crm, objectTypeId: type.id, name: `Row ${i}`, public: true, createdAt: T0 + i * 1000,
      fields: {
        amount: { value: i * 10, fieldType: 'double' },
        seats: { value: i, fieldType: 'int' },
        won: { value: i % 2 === 0, fieldType: 'boolean' },
        closeDate: { value: `2024-04-${String((i % 28) + 1).padStart(2, '0')}`, fieldType: 'date' },
        note: { value: null, fieldType: 'string' },
      },
    });
  }
  dir = tempDir();
  const pgExport = pgAvailable
    ? `  - name: calls-pg
    resource: conversations
    details: true
    deletes: soft
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: conversations, shape: relational }
`
    : '';
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
exports:
  - name: calls-sqlite
    resource: conversations
    details: true
    deletes: soft
    destination: { type: sqlite-table, path: out/warehouse.db, table: conversations, shape: relational }
  - name: calls-duckdb
    resource: conversations
    details: true
    deletes: soft
    destination: { type: duckdb, path: out/warehouse.duckdb, table: conversations, shape: relational }
  - name: calls-jsonl
    resource: conversations
    deletes: soft
    destination: { type: file, path: out/calls.jsonl.gz, mode: append }
  - name: rows-duckdb
    resource: rows
    filters: { source: crm }
    deletes: mirror
    destination: { type: duckdb, path: out/warehouse.duckdb, table: rows, shape: relational }
  - name: rows-parquet
    resource: rows
    filters: { source: crm }
    destination: { type: parquet, path: out/lake, table: rows, shape: relational }
  - name: calls-old
    resource: conversations
    destination: { type: sqlite-table, path: out/old.db, table: conversations }
${pgExport}${pgAvailable ? `  - name: rows-pg
    resource: rows
    filters: { source: crm }
    deletes: soft
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: rows, shape: relational }
` : ''}`,
  );
  config = await loadConfig(join(dir, 'ferry.yaml'));
  store = await openStateStore(`sqlite:${join(dir, 'state.db')}`);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await emu?.close();
  if (pgAvailable) await dropSchemas(schema);
});

describe('analyst conventions', () => {
  it('a new export writes snake_case names, load metadata on every table and a _ferry_loads row', async () => {
    const summary = await run('calls-sqlite');
    expect(summary).toMatchObject({ status: 'succeeded', exported: CALLS });
    const file = join(dir, 'out/warehouse.db');
    const columns = python(file, "SELECT name FROM pragma_table_info('conversations')").map((row) => row[0]);
    expect(columns).toEqual(expect.arrayContaining(['conversation_id', 'source_id', 'start_time', 'end_time', '_ferry_loaded_at', '_ferry_load_id', '_ferry_deleted_at']));
    expect(columns.some((name) => /[A-Z]/.test(String(name)))).toBe(false);
    const childColumns = python(file, "SELECT name FROM pragma_table_info('conversation_transcript')").map((row) => row[0]);
    expect(childColumns).toEqual(expect.arrayContaining(['conversation_id', 'position', 'speaker', 'text', 'start_time', '_ferry_load_id']));
    expect(python(file, 'SELECT count(*), count(DISTINCT conversation_id), min(_ferry_load_id) = max(_ferry_load_id) FROM conversations')).toEqual([[CALLS, CALLS, 1]]);
    expect(python(file, "SELECT count(*) FROM conversation_transcript WHERE text = 'Grüße 👋' AND _ferry_load_id = (SELECT min(_ferry_load_id) FROM conversations)")).toEqual([[CALLS]]);
    expect(python(file, 'SELECT load_id, export_name, resource, table_name, records_read, records_written, records_deleted FROM _ferry_loads')).toEqual([
      [summary.runId, 'calls-sqlite', 'conversations', 'conversations', CALLS, CALLS, 0],
    ]);
    expect(await store.exportLayout(exportStateKey('calls-sqlite'))).toEqual({ naming: 'snake_case', metadata: true, nested: 'struct' });
  });

  it('an export that ran before layouts were recorded keeps the service names and no metadata', async () => {
    const key = exportStateKey('calls-old');
    await store.finishRun(await store.startRun(key), { status: 'succeeded', counts: { read: 0, pushed: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 0 } });
    expect(await run('calls-old')).toMatchObject({ status: 'succeeded', exported: CALLS });
    const columns = python(join(dir, 'out/old.db'), "SELECT name FROM pragma_table_info('conversations')").map((row) => row[0]);
    expect(columns).toContain('conversationId');
    expect(columns.filter((name) => String(name).startsWith('_ferry'))).toEqual([]);
    expect(python(join(dir, 'out/old.db'), "SELECT count(*) FROM sqlite_master WHERE name = '_ferry_loads'")).toEqual([[0]]);
    expect(await store.exportLayout(key)).toEqual({ naming: 'api', metadata: false, nested: 'json' });
  });

  it('deletes: soft keeps a deleted record, stamped, in SQLite, DuckDB, PostgreSQL and an appended JSON Lines file', async () => {
    expect(await run('calls-duckdb')).toMatchObject({ status: 'succeeded', exported: CALLS });
    if (pgAvailable) expect(await run('calls-pg')).toMatchObject({ status: 'succeeded', exported: CALLS });
    expect(await run('calls-jsonl')).toMatchObject({ status: 'succeeded', exported: CALLS });
    await client.deleteConversation({ remoteId: 'call-3', sourceId });
    const names = ['calls-sqlite', 'calls-duckdb', 'calls-jsonl', ...(pgAvailable ? ['calls-pg'] : [])];
    for (const name of names) expect(await run(name)).toMatchObject({ status: 'succeeded', exported: CALLS - 1, counts: expect.objectContaining({ deleted: 1 }) });
    // A second run marks nothing again: the stamp stays the first one.
    for (const name of names) expect(await run(name)).toMatchObject({ status: 'succeeded', counts: expect.objectContaining({ deleted: 0 }) });

    // The file keeps every run's lines; its last line per key says what the service holds, read by Python's gzip and json.
    const script = [
      'import gzip,json,sys',
      'lines=[json.loads(l) for l in gzip.open(sys.argv[1],"rt",encoding="utf-8") if l.strip()]',
      'last={l["conversation_id"]:l for l in lines}',
      'gone=[l for l in last.values() if l["_ferry_deleted_at"]]',
      'stones=[i for i,l in enumerate(lines) if l["_ferry_deleted_at"]]',
      // The tombstone follows the lines of the run that found the record gone, under that run's load id.
      'print(json.dumps([len(lines),len(last),[(g["title"],g["_ferry_loaded_at"]==g["_ferry_deleted_at"]) for g in gone],[(i,lines[i]["_ferry_load_id"]==lines[i-1]["_ferry_load_id"]!=lines[0]["_ferry_load_id"]) for i in stones]]))',
    ].join('\n');
    const appended = JSON.parse(execFileSync('python3', ['-c', script, join(dir, 'out/calls.jsonl.gz')], { encoding: 'utf8' })) as unknown;
    expect(appended).toEqual([CALLS + 1 + 2 * (CALLS - 1), CALLS, [['Call 3', true]], [[CALLS + CALLS - 1, true]]]);

    const file = join(dir, 'out/warehouse.db');
    expect(python(file, "SELECT count(*), count(_ferry_deleted_at), max(CASE WHEN _ferry_deleted_at IS NOT NULL THEN title END) FROM conversations")).toEqual([[CALLS, 1, 'Call 3']]);
    expect(python(file, 'SELECT count(*), sum(records_deleted) FROM _ferry_loads')).toEqual([[3, 1]]);

    expect(await duck("SELECT count(*)::INT AS n, count(_ferry_deleted_at)::INT AS gone, max(title) FILTER (_ferry_deleted_at IS NOT NULL) AS title FROM conversations")).toEqual([
      { n: CALLS, gone: 1, title: 'Call 3' },
    ]);
    expect(await duck('SELECT count(*)::INT AS n FROM conversation_transcript')).toEqual([{ n: CALLS * 2 }]);
    // Child rows have a key of their own in SQLite and DuckDB too, kept through runs that rewrote them.
    expect(python(file, "SELECT name FROM pragma_table_info('conversation_transcript') WHERE pk > 0")).toEqual([['_ferry_id']]);
    expect(python(file, 'SELECT count(*), count(DISTINCT _ferry_id) FROM conversation_transcript')).toEqual([[CALLS * 2, CALLS * 2]]);
    expect(await duck("SELECT constraint_column_names::VARCHAR AS columns FROM duckdb_constraints() WHERE table_name = 'conversation_transcript' AND constraint_type = 'PRIMARY KEY'")).toEqual([
      { columns: '[_ferry_id]' },
    ]);
    expect(await duck('SELECT count(*)::INT AS loads, sum(records_written)::INT AS written FROM _ferry_loads')).toEqual([{ loads: 3, written: CALLS + 2 * (CALLS - 1) }]);

    if (pgAvailable) {
      expect(psql(`SELECT count(*), count(_ferry_deleted_at), max(title) FILTER (WHERE _ferry_deleted_at IS NOT NULL) FROM "${schema}".conversations`)).toBe(`${CALLS}|1|Call 3`);
      // The deleted call's participants keep the load that last wrote them; the others the newest.
      expect(psql(`SELECT count(*), count(DISTINCT _ferry_load_id) FROM "${schema}".conversation_participants`)).toBe(`${CALLS * 2}|2`);
      expect(psql(`SELECT count(*), sum(records_deleted) FROM "${schema}"._ferry_loads`)).toBe('3|1');
    }
  });

  it('typed tables: one per object type, types from fieldType, a primary key in PostgreSQL, child rows with a key of their own', async () => {
    expect(await run('rows-duckdb')).toMatchObject({ status: 'succeeded', exported: ROWS });
    const types = await duck(
      "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_name IN ('rows_deal', 'rows_support_ticket') AND column_name IN ('amount', 'seats', 'won', 'close_date', 'note', 'created_at') ORDER BY ALL",
    );
    expect(types.filter((t) => t.table_name === 'rows_deal').map((t) => [t.column_name, t.data_type])).toEqual([
      ['amount', 'DOUBLE'], ['close_date', 'DATE'], ['created_at', 'TIMESTAMP WITH TIME ZONE'], ['note', 'VARCHAR'], ['seats', 'BIGINT'], ['won', 'BOOLEAN'],
    ]);
    expect(await duck("SELECT (SELECT count(*) FROM rows_deal)::INT AS deals, (SELECT count(*) FROM rows_support_ticket)::INT AS tickets, (SELECT count(*) FROM information_schema.tables WHERE table_name = 'rows')::INT AS one")).toEqual([
      { deals: 6, tickets: 3, one: 0 },
    ]);
    // A conversation field that is null in every record (category) is a column all the same.
    expect(await duck("SELECT count(*)::INT AS n FROM information_schema.columns WHERE table_name = 'conversations' AND column_name = 'category'")).toEqual([{ n: 1 }]);
    expect(await duck("SELECT count(*)::INT AS n, count(DISTINCT _ferry_id)::INT AS ids FROM conversation_transcript")).toEqual([{ n: CALLS * 2, ids: CALLS * 2 }]);

    expect(await run('rows-parquet')).toMatchObject({ status: 'succeeded', exported: ROWS });
    const lake = join(dir, 'out/lake');
    expect(await duck(`SELECT count(*)::INT AS n, typeof(any_value(close_date)) AS d, typeof(any_value(amount)) AS a FROM read_parquet('${lake}/rows_deal/*.parquet')`, ':memory:')).toEqual([{ n: 6, d: 'DATE', a: 'DOUBLE' }]);

    // deletes: mirror reaches the per-type tables.
    await client.deleteRow({ remoteId: 'row-1', sourceId: (await client.listSources({ name: 'crm' })).sources[0]!.id });
    expect(await run('rows-duckdb')).toMatchObject({ status: 'succeeded', exported: ROWS - 1, counts: expect.objectContaining({ deleted: 1 }) });
    expect(await duck('SELECT count(*)::INT AS n FROM rows_deal')).toEqual([{ n: 5 }]);

    if (pgAvailable) {
      expect(await run('rows-pg')).toMatchObject({ status: 'succeeded', exported: ROWS - 1 });
      expect(psql(`SELECT column_name || ':' || data_type FROM information_schema.columns WHERE table_schema = '${schema}' AND table_name = 'rows_deal' AND column_name IN ('amount', 'seats', 'won', 'close_date', 'created_at', '_ferry_loaded_at', '_ferry_deleted_at') ORDER BY 1`).split('\n')).toEqual([
        '_ferry_deleted_at:timestamp with time zone', '_ferry_loaded_at:timestamp with time zone', 'amount:double precision', 'close_date:date', 'created_at:timestamp with time zone', 'seats:bigint', 'won:boolean',
      ]);
      const primary = (table: string) =>
        psql(`SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND i.indrelid = '"${schema}".${table}'::regclass`);
      expect(primary('rows_deal')).toBe('row_id');
      expect(primary('conversations')).toBe('conversation_id');
      expect(primary('conversation_transcript')).toBe('_ferry_id');
      expect(psql(`SELECT count(*), sum(seats) FILTER (WHERE won) FROM "${schema}".rows_support_ticket`)).toBe('3|6');
      expect(psql(`SELECT string_agg(DISTINCT _ferry_id, ',') FROM "${schema}".conversation_transcript WHERE conversation_id = (SELECT conversation_id FROM "${schema}".conversations WHERE title = 'Call 0')`)).toMatch(/^.+#0,.+#1$/);
    }
  });
});

/**
 * Changed records end to end against the emulator, read back by readers
 * that are not ferry's (Python's sqlite3, psql, a DuckDB connection of the
 * test's own over the Parquet files): an incremental export scans the list,
 * writes only what is new or changed since it was exported (by fingerprint),
 * and applies deletions per its `deletes:`; unchanged rows keep the load id
 * that wrote them. A run stopped midway leaves nothing the next run skips.
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
import type { RunCounts, StateStore } from '../../../src/state/index.js';
import { tempDir } from '../../unit/export/helpers.js';
import { dropSchemas, freshSchema, PG_URL, postgresReachable } from '../../helpers/postgres.js';

const pgAvailable = await postgresReachable();
const schema = freshSchema('ferry_h44chg');
const logger = pino({ level: 'silent' });
const T0 = Date.parse('2024-03-01T09:00:00Z');
const ROWS = 12;

let emu: RunningEmulator;
let client: ServiceClient;
let crm: string;
let objectTypeId: string;
let dir: string;
let config: LoadedConfig;
let store: StateStore;

async function run(name: string, options: { signal?: AbortSignal; onProgress?: (counts: RunCounts) => void } = {}) {
  const exp = config.exports.find((e) => e.name === name)!;
  const { prepared, issues } = await inspectExport(config, exp);
  expect(issues).toEqual([]);
  return runExport(prepared!, { store, service: client }, { signal: options.signal ?? new AbortController().signal, logger, batchSize: 4, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
}

/** A project of its own holding one export (`exports:` entries as YAML), checked as `ferry export` checks it before reading. */
async function inspectOne(fileName: string, exportsYaml: string) {
  const file = join(dir, fileName);
  writeFileSync(file, `version: 1\nexports:\n${exportsYaml}`);
  const loaded = await loadConfig(file);
  return inspectExport(loaded, loaded.exports[0]!);
}

function python(file: string, sql: string): unknown[][] {
  const script = 'import json,sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nprint(json.dumps(c.execute(sys.argv[2]).fetchall()))';
  return JSON.parse(execFileSync('python3', ['-c', script, file, sql], { encoding: 'utf8' })) as unknown[][];
}

function psql(sql: string): string {
  return execFileSync('psql', [PG_URL, '-At', '-F', '|', '-c', sql], { encoding: 'utf8' }).trim();
}

function duck(sql: string): Promise<Record<string, unknown>[]> {
  return duckRows(':memory:', sql);
}

async function createRow(i: number): Promise<void> {
  await client.createRow({
    id: `row-${i}`, sourceId: crm, objectTypeId, name: `Row ${i}`, public: true, createdAt: T0 + i * 1000,
    fields: { amount: { value: i * 10, fieldType: 'double' }, note: { value: `note ${i}`, fieldType: 'string' } },
  });
}

const key = (i: number) => ({ remoteId: `row-${i}`, sourceId: crm });

beforeAll(async () => {
  emu = await startEmulator({ db: ':memory:' });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.devKey ?? '', concurrency: 4, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  crm = (await client.createSource({ name: 'crm', displayName: 'CRM' })).id;
  const type = await client.createObjectType({
    sourceId: crm, name: 'deal', displayName: 'Deal',
    fieldDefinitions: [{ name: 'amount', fieldType: 'double' }, { name: 'note', fieldType: 'string' }],
  });
  objectTypeId = type.id;
  for (let i = 0; i < ROWS; i++) await createRow(i);
  dir = tempDir();
  const common = `    resource: rows
    filters: { source: crm }
    incremental: { cursor: createdAt }`;
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
exports:
  - name: rows-sqlite
${common}
    deletes: soft
    destination: { type: sqlite-table, path: out/warehouse.db, table: rows }
  - name: rows-parquet
${common}
    deletes: soft
    destination: { type: parquet, path: out/lake, table: rows, mode: append }
  - name: docs-scan
    resource: documents
    filters: { sourceId: "\${CRM_SOURCE_ID}" }
    incremental: { changes: scan }
    deletes: soft
    destination: { type: sqlite-table, path: out/docs.db, table: documents }
  - name: calls-lake
    resource: conversations
    filters: { sourceId: "\${CALLS_SOURCE_ID}" }
    incremental: { cursor: startTime }
    deletes: soft
    destination: { type: parquet, path: out/calls-lake, table: calls, mode: append, partition: { field: startTime, by: month } }
  - name: rows-new-only
${common.replace('{ cursor: createdAt }', '{ cursor: createdAt, changes: new }')}
    destination: { type: sqlite-table, path: out/new-only.db, table: rows }
${pgAvailable ? `  - name: rows-pg
${common}
    deletes: mirror
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${schema}, table: rows }
` : ''}`,
  );
  process.env.CRM_SOURCE_ID = crm;
  process.env.CALLS_SOURCE_ID = (await client.createSource({ name: 'calls', displayName: 'Calls' })).id;
  config = await loadConfig(join(dir, 'ferry.yaml'));
  store = await openStateStore(`sqlite:${join(dir, 'state.db')}`);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await emu?.close();
  if (pgAvailable) await dropSchemas(schema);
});

describe('incremental exports apply changes', () => {
  const names = ['rows-sqlite', 'rows-parquet', 'rows-new-only', ...(pgAvailable ? ['rows-pg'] : [])];
  const first: Record<string, string> = {};

  it('a first run writes every record as inserted', async () => {
    for (const name of names) {
      const summary = await run(name);
      expect(summary, name).toMatchObject({ status: 'succeeded', exported: ROWS });
      first[name] = summary.runId!;
      if (name !== 'rows-new-only') expect(summary.counts, name).toMatchObject({ read: ROWS, created: ROWS, updated: 0, unchanged: 0 });
    }
    expect(await store.countExportFingerprints(exportStateKey('rows-sqlite'))).toBe(ROWS);
    expect(await store.countExportFingerprints(exportStateKey('rows-new-only'))).toBe(0);
  });

  it('a run with nothing changed writes nothing', async () => {
    for (const name of names.filter((n) => n !== 'rows-new-only')) {
      const summary = await run(name);
      expect(summary, name).toMatchObject({ status: 'succeeded', exported: 0, counts: expect.objectContaining({ read: ROWS, unchanged: ROWS, created: 0, updated: 0, deleted: 0 }) });
    }
  });

  it('an edited, a deleted and a new record reach the destination; the others keep their load id', async () => {
    await client.updateRow(key(2), { name: 'Row 2 renamed', fields: { amount: { value: 999.5, fieldType: 'double' } } });
    await client.deleteRow(key(5));
    await createRow(ROWS);
    const second: Record<string, string> = {};
    for (const name of names) {
      const summary = await run(name);
      second[name] = summary.runId!;
      if (name === 'rows-new-only') {
        // The old way: only the new record.
        expect(summary, name).toMatchObject({ status: 'succeeded', exported: 1 });
        continue;
      }
      const deleted = 1;
      expect(summary, name).toMatchObject({
        status: 'succeeded',
        exported: 2,
        counts: expect.objectContaining({ read: ROWS, created: 1, updated: 1, unchanged: ROWS - 2, deleted }),
      });
    }

    const db = join(dir, 'out/warehouse.db');
    expect(python(db, "SELECT name, json_extract(fields, '$.amount.value'), _ferry_load_id FROM rows WHERE remote_id = 'row-2'")).toEqual([['Row 2 renamed', 999.5, second['rows-sqlite']]]);
    expect(python(db, "SELECT count(*), count(_ferry_deleted_at) FROM rows WHERE remote_id = 'row-5'")).toEqual([[1, 1]]);
    expect(python(db, `SELECT _ferry_load_id, count(*) FROM rows GROUP BY 1 ORDER BY 1`)).toEqual(
      [[first['rows-sqlite'], ROWS - 1], [second['rows-sqlite'], 2]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(python(db, `SELECT records_read, records_written, records_inserted, records_updated, records_unchanged, records_deleted FROM _ferry_loads WHERE load_id = '${second['rows-sqlite']}'`)).toEqual([
      [ROWS, 2, 1, 1, ROWS - 2, 1],
    ]);
    // changes: new keeps the stale row until a full export.
    expect(python(join(dir, 'out/new-only.db'), "SELECT name FROM rows WHERE remote_id = 'row-2'")).toEqual([['Row 2']]);

    // Parquet in append mode: the run's part holds the changed and the new record; the latest per key is the service's.
    const lake = join(dir, 'out/lake/rows');
    const parts = await duck(`SELECT _ferry_load_id AS load, count(*)::INT AS n FROM read_parquet('${lake}/*.parquet') GROUP BY 1 ORDER BY 2 DESC`);
    // ...and, under deletes: soft, a newer copy of the deleted record stamped _ferry_deleted_at (its files are never rewritten).
    expect(parts).toEqual([{ load: first['rows-parquet'], n: ROWS }, { load: second['rows-parquet'], n: 3 }]);
    const newest = (where: string) =>
      duck(`SELECT remote_id, name, _ferry_deleted_at IS NOT NULL AS deleted FROM read_parquet('${lake}/*.parquet', union_by_name = true) WHERE ${where} QUALIFY row_number() OVER (PARTITION BY row_id ORDER BY _ferry_loaded_at DESC) = 1 ORDER BY remote_id`);
    expect(await newest("remote_id IN ('row-2', 'row-5')")).toEqual([{ remote_id: 'row-2', name: 'Row 2 renamed', deleted: false }, { remote_id: 'row-5', name: 'Row 5', deleted: true }]);
    expect(await duck(`SELECT count(*)::INT AS live FROM (SELECT _ferry_deleted_at FROM read_parquet('${lake}/*.parquet', union_by_name = true) QUALIFY row_number() OVER (PARTITION BY row_id ORDER BY _ferry_loaded_at DESC) = 1) WHERE _ferry_deleted_at IS NULL`)).toEqual([{ live: ROWS }]);

    if (pgAvailable) {
      expect(psql(`SELECT count(*), count(*) FILTER (WHERE remote_id = 'row-5') FROM "${schema}".rows`)).toBe(`${ROWS}|0`);
      expect(psql(`SELECT name, _ferry_load_id FROM "${schema}".rows WHERE remote_id = 'row-2'`)).toBe(`Row 2 renamed|${second['rows-pg']}`);
      expect(psql(`SELECT count(*) FROM "${schema}".rows WHERE _ferry_load_id = '${first['rows-pg']}'`)).toBe(String(ROWS - 2));
      expect(psql(`SELECT records_inserted, records_updated, records_unchanged, records_deleted FROM "${schema}"._ferry_loads WHERE load_id = '${second['rows-pg']}'`)).toBe(`1|1|${ROWS - 2}|1`);
    }
    expect(await store.countExportFingerprints(exportStateKey('rows-sqlite'))).toBe(ROWS);
  });

  it('a record that comes back after its deletion is written again, live', async () => {
    await createRow(5);
    const summary = await run('rows-sqlite');
    expect(summary.counts).toMatchObject({ created: 1, updated: 0, unchanged: ROWS, deleted: 0 });
    expect(python(join(dir, 'out/warehouse.db'), "SELECT count(*), count(_ferry_deleted_at) FROM rows WHERE remote_id = 'row-5'")).toEqual([[1, 0]]);
    // A tombstoned record is marked once: the next run, with nothing deleted, adds no second tombstone.
    const lake = join(dir, 'out/lake/rows');
    expect((await run('rows-parquet')).counts).toMatchObject({ created: 1, deleted: 0 });
    expect(await duck(`SELECT name, _ferry_deleted_at IS NULL AS live FROM read_parquet('${lake}/*.parquet', union_by_name = true) WHERE remote_id = 'row-5' QUALIFY row_number() OVER (PARTITION BY row_id ORDER BY _ferry_loaded_at DESC) = 1`)).toEqual([{ name: 'Row 5', live: true }]);
    expect(await duck(`SELECT count(*)::INT AS n FROM read_parquet('${lake}/*.parquet', union_by_name = true) WHERE _ferry_deleted_at IS NOT NULL`)).toEqual([{ n: 1 }]);
  });

  it('a run stopped midway commits no fingerprint: the next run writes again what it may have written', async () => {
    for (let i = 0; i < 6; i++) await client.updateRow(key(i), { fields: { note: { value: `edited ${i}`, fieldType: 'string' } } });
    const stop = new AbortController();
    const stopped = await run('rows-sqlite', { signal: stop.signal, onProgress: (counts) => counts.pushed > 0 && stop.abort() });
    expect(stopped.status).toBe('aborted');
    expect(stopped.counts.pushed).toBeGreaterThan(0);
    const resumed = await run('rows-sqlite');
    expect(resumed.counts).toMatchObject({ updated: 6, unchanged: ROWS + 1 - 6 });
    expect(python(join(dir, 'out/warehouse.db'), "SELECT count(*) FROM rows WHERE json_extract(fields, '$.note.value') LIKE 'edited %'")).toEqual([[6]]);
    expect((await run('rows-sqlite')).counts).toMatchObject({ unchanged: ROWS + 1, updated: 0, created: 0 });
  });
});

describe('a scan without a cursor', () => {
  const doc = (i: number, text: string) => ({ id: `doc-${i}`, sourceId: crm, displayName: `Doc ${i}`, content: Buffer.from(text).toString('base64'), public: true });

  it('lists documents in full each run and writes only the new, the changed and the deleted', async () => {
    for (let i = 0; i < 3; i++) await client.createDocument(doc(i, `text ${i}`));
    const db = join(dir, 'out/docs.db');
    const first = await run('docs-scan');
    expect(first.counts).toMatchObject({ read: 3, created: 3, updated: 0, unchanged: 0, deleted: 0 });
    expect(first.changes).toEqual({ inserted: 3, updated: 0, unchanged: 0 });

    await client.updateDocument({ remoteId: 'doc-0', sourceId: crm }, { displayName: 'Doc 0 renamed' });
    await client.deleteDocument({ remoteId: 'doc-1', sourceId: crm });
    await client.createDocument(doc(3, 'text 3'));
    const second = await run('docs-scan');
    expect(second.counts).toMatchObject({ read: 3, created: 1, updated: 1, unchanged: 1, deleted: 1, pushed: 2 });
    expect(python(db, 'SELECT remote_id, display_name, _ferry_deleted_at IS NOT NULL FROM documents ORDER BY remote_id')).toEqual([
      ['doc-0', 'Doc 0 renamed', 0],
      ['doc-1', 'Doc 1', 1],
      ['doc-2', 'Doc 2', 0],
      ['doc-3', 'Doc 3', 0],
    ]);
    expect((await run('docs-scan')).counts).toMatchObject({ read: 3, created: 0, updated: 0, unchanged: 3, pushed: 0 });
  });

  it('is refused with changes: new, which has no time field to read past', async () => {
    const { prepared, issues } = await inspectOne('new-docs.yaml', `  - name: docs-new
    resource: documents
    incremental: { changes: new }
    destination: { type: sqlite-table, path: out/x.db, table: documents }
`);
    expect(prepared).toBeUndefined();
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([expect.stringMatching(/^exports\[0\]\.incremental\.cursor: documents have no time field for changes: new/)]);
  });
});

describe('deletes: soft in an append-only Parquet dataset', () => {
  const MARCH = Date.parse('2024-03-10T09:00:00Z');
  const APRIL = Date.parse('2024-04-10T09:00:00Z');
  const call = (i: number, at: number) => ({
    id: `call-${i}`, sourceId: process.env.CALLS_SOURCE_ID!, public: true, createdAt: at, startedAt: at, displayName: `Call ${i}`,
    participants: [{ id: 'agent', name: 'Agent Ünal' }],
    transcript: [{ speakerName: 'Agent Ünal', text: `Hello ${i}`, timestamp: at + 1000 }],
  });

  it('writes a tombstone of the deleted call in its month, nested columns kept, and the newest copy per key says it is gone', async () => {
    for (let i = 0; i < 4; i++) await client.createConversation(call(i, i < 2 ? MARCH + i * 60_000 : APRIL + i * 60_000));
    const first = await run('calls-lake');
    expect(first.counts).toMatchObject({ created: 4, deleted: 0 });
    await client.deleteConversation({ remoteId: 'call-3', sourceId: process.env.CALLS_SOURCE_ID! });
    const second = await run('calls-lake');
    expect(second.counts).toMatchObject({ read: 3, created: 0, updated: 0, unchanged: 3, deleted: 1, pushed: 0 });

    const lake = join(dir, 'out/calls-lake/calls');
    const files = `read_parquet('${lake}/*/*.parquet', union_by_name = true, hive_partitioning = true, filename = true)`;
    expect(await duck(`SELECT month, _ferry_load_id AS load, regexp_matches(filename, 'deleted') AS tombstone FROM ${files} WHERE _ferry_deleted_at IS NOT NULL`)).toEqual([
      { month: '2024-04', load: second.runId, tombstone: true },
    ]);
    const newest = await duck(
      `SELECT title, participants[1].name AS agent, _ferry_deleted_at IS NOT NULL AS deleted FROM ${files} ` +
        `QUALIFY row_number() OVER (PARTITION BY conversation_id ORDER BY _ferry_loaded_at DESC) = 1 ORDER BY title`,
    );
    expect(newest).toEqual([
      { title: 'Call 0', agent: 'Agent Ünal', deleted: false },
      { title: 'Call 1', agent: 'Agent Ünal', deleted: false },
      { title: 'Call 2', agent: 'Agent Ünal', deleted: false },
      { title: 'Call 3', agent: 'Agent Ünal', deleted: true },
    ]);
    // Marked once: a run with nothing new deleted writes no second tombstone.
    expect((await run('calls-lake')).counts).toMatchObject({ deleted: 0, pushed: 0 });
    expect(await duck(`SELECT count(*)::INT AS n FROM ${files} WHERE _ferry_deleted_at IS NOT NULL`)).toEqual([{ n: 1 }]);
  });

  it('is refused under deletes: mirror before anything is read: its files are never rewritten', async () => {
    const { prepared } = await inspectOne('mirror-lake.yaml', `  - name: lake-mirror
    resource: conversations
    deletes: mirror
    destination: { type: parquet, path: out/mirror-lake, table: calls, mode: append }
`);
    await expect(runExport(prepared!, { store, service: client }, { signal: new AbortController().signal, logger })).resolves.toMatchObject({
      status: 'failed',
      exitCode: 1,
      counts: expect.objectContaining({ read: 0 }),
      error: expect.stringMatching(/parquet cannot delete records, so deletes: mirror cannot apply/),
    });
  });
});

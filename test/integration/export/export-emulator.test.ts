/**
 * Exports end to end against the emulator: records pushed through the real
 * ServiceClient, exports declared in a YAML file, prepared and run into each
 * destination. Postgres cases run when the local server answers.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ServiceClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config/index.js';
import type { LoadedConfig } from '../../../src/config/index.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { exportStateKey, inspectExport, runExport } from '../../../src/export/index.js';
import type { ExportRunOptions, ExportService, PreparedExport } from '../../../src/export/index.js';
import { FerryError } from '../../../src/sdk/errors.js';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { tempDir } from '../../unit/export/helpers.js';
import { PG_URL, postgresReachable } from '../../helpers/postgres.js';

const PG_TABLE = `ferry_export_test_${process.pid}_${Date.now() % 100000}`;
const pgAvailable = await postgresReachable();

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2024-03-01T09:00:00Z');
const DEALS = 120;
const CONVERSATIONS = 60;
const MESSAGES = 30;

let emu: RunningEmulator;
let client: ServiceClient;
let dir: string;
let config: LoadedConfig;
let store: StateStore;

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

function conversation(sourceId: string, i: number, startMs: number) {
  return {
    id: `call-${i}`,
    sourceId,
    public: true,
    createdAt: startMs,
    startedAt: startMs,
    displayName: `Call ${i}`,
    participants: [{ id: 'agent', name: 'Agent' }, { email: `customer${i}@example.com` }],
    transcript: [
      { speakerName: 'Agent', text: `Hello caller ${i}`, timestamp: startMs + 1000 },
      { speakerName: 'Customer', text: 'I need help with my card', timestamp: startMs + 4000 },
    ],
  };
}

async function prepare(name: string): Promise<PreparedExport> {
  const exp = config.exports.find((e) => e.name === name)!;
  const { prepared, issues } = await inspectExport(config, exp);
  expect(issues).toEqual([]);
  return prepared!;
}

function run(name: string | PreparedExport, options: Partial<ExportRunOptions> = {}, service: ExportService = client) {
  return (typeof name === 'string' ? prepare(name) : Promise.resolve(name)).then((prepared) =>
    runExport(prepared, { store, service }, { signal: new AbortController().signal, logger, batchSize: 40, ...options }),
  );
}

function sqliteRows(file: string, sql: string): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  emu = await startEmulator({ db: ':memory:' });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.devKey ?? '', concurrency: 8, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  const crm = await client.createSource({ name: 'crm', displayName: 'CRM' });
  const calls = await client.createSource({ name: 'calls', displayName: 'Calls' });
  const mail = await client.createSource({ name: 'mail', displayName: 'Mail' });
  const fieldDefinitions = [{ name: 'amount', fieldType: 'double' as const }, { name: 'stage', fieldType: 'string' as const }];
  const deal = await client.createObjectType({ sourceId: crm.id, name: 'deal', displayName: 'Deal', fieldDefinitions });
  const ticket = await client.createObjectType({ sourceId: crm.id, name: 'ticket', displayName: 'Ticket', fieldDefinitions });
  const rows = [
    ...Array.from({ length: DEALS }, (_, i) => ({ objectTypeId: deal.id, id: `deal-${i}`, name: `Deal ${i}`, amount: i * 10.5 })),
    ...Array.from({ length: 15 }, (_, i) => ({ objectTypeId: ticket.id, id: `ticket-${i}`, name: `Ticket ${i}`, amount: 1 })),
  ];
  await inBatches(rows, 16, (r) =>
    client.createRow({
      id: r.id, sourceId: crm.id, objectTypeId: r.objectTypeId, name: r.name, public: true, createdAt: T0,
      fields: { amount: { value: r.amount, fieldType: 'double' }, stage: { value: 'open', fieldType: 'string' } },
    }),
  );
  await inBatches(Array.from({ length: CONVERSATIONS }, (_, i) => i), 16, (i) => client.createConversation(conversation(calls.id, i, T0 + i * 60_000)));
  await inBatches(Array.from({ length: MESSAGES }, (_, i) => i), 16, (i) =>
    client.createMessage({
      id: `mail-${i}`, sourceId: mail.id, public: true, createdAt: T0 + i * 1000, displayName: `Subject ${i}`,
      body: `Full body of message ${i}, ${'long text '.repeat(40)}`,
      sender: { email: 'ann@example.com', name: 'Ann' }, recipients: [{ email: 'bo@example.com' }], threadId: `t${i % 3}`,
    }),
  );

  dir = tempDir();
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
exports:
  - name: deal-rows
    resource: rows
    naming: api
    metadata: false
    filters: { source: crm, objectType: deal }
    destination: { type: file, path: out/deals.jsonl }
  - name: deal-rows-csv
    resource: rows
    naming: api
    metadata: false
    filters: { source: crm, objectType: deal }
    destination: { type: file, path: out/deals.csv, columns: [remoteId, name, fields.amount.value] }
  - name: conversations
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    destination: { type: sqlite-table, path: out/warehouse.db, table: conversations }
  - name: messages-pg
    resource: messages
    naming: api
    metadata: false
    details: true
    filters: { source: mail }
    destination: { type: postgres-table, url: "${PG_URL}", table: ${PG_TABLE} }
  - name: broken
    resource: documents
    filters: { sourceName: x, limit: 5 }
    incremental: { cursor: createdAt }
    destination: { type: sqlite-table, path: out/x.db }
`,
  );
  config = await loadConfig(join(dir, 'ferry.yaml'));
  store = await openStateStore('sqlite::memory:');
}, 60_000);

afterAll(async () => {
  await store?.close();
  await client?.close();
  await emu?.close();
  if (pgAvailable) {
    const db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    await db.query(`DROP TABLE IF EXISTS "${PG_TABLE}"`);
    await db.end();
  }
});

describe('export against the emulator', () => {
  it('pages rows with the filters repeated, to a JSON lines file; a re-run overwrites', async () => {
    const summary = await run('deal-rows');
    expect(summary).toMatchObject({ status: 'succeeded', exported: DEALS, exitCode: 0, resource: 'rows', destination: 'file' });
    const lines = readFileSync(join(dir, 'out/deals.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(DEALS);
    expect(new Set(lines.map((l) => l.rowId)).size).toBe(DEALS);
    expect(lines.every((l) => l.objectTypeName === 'deal')).toBe(true);
    const deal7 = lines.find((l) => l.remoteId === 'deal-7') as { fields: { amount: { value: number; fieldType: string } } };
    expect(deal7.fields.amount).toMatchObject({ value: 73.5, fieldType: 'double' });

    const again = await run('deal-rows');
    expect(again.exported).toBe(DEALS);
    expect(readFileSync(join(dir, 'out/deals.jsonl'), 'utf8').trim().split('\n')).toHaveLength(DEALS);
    const runs = await store.runs({ sync: exportStateKey('deal-rows') });
    expect(runs.map((r) => [r.status, r.counts.read, r.counts.pushed])).toEqual([['succeeded', DEALS, DEALS], ['succeeded', DEALS, DEALS]]);
  });

  it('writes the listed CSV columns with nested fields flattened', async () => {
    await run('deal-rows-csv');
    const lines = readFileSync(join(dir, 'out/deals.csv'), 'utf8').trim().split('\n');
    expect(lines[0]).toBe('remoteId,name,fields.amount.value');
    expect(lines).toHaveLength(DEALS + 1);
    expect(lines).toContain('deal-7,Deal 7,73.5');
  });

  it('exports conversations with transcripts into SQLite, then only what is new', async () => {
    const db = join(dir, 'out/warehouse.db');
    const first = await run('conversations');
    expect(first).toMatchObject({ status: 'succeeded', exported: CONVERSATIONS, exitCode: 0 });
    expect(first.cursor?.value).toBe(new Date(T0 + (CONVERSATIONS - 1) * 60_000).toISOString());
    const stored = sqliteRows(db, 'SELECT conversationId, title, transcript, participants FROM conversations');
    expect(stored).toHaveLength(CONVERSATIONS);
    const call3 = stored.find((r) => r.title === 'Call 3')!;
    const transcript = JSON.parse(String(call3.transcript)) as { speaker: string; text: string; startTime: number }[];
    expect(transcript.map((t) => [t.speaker, t.text, t.startTime])).toEqual([['Agent', 'Hello caller 3', 1], ['Customer', 'I need help with my card', 4]]);

    const calls = (await client.listSources({ name: 'calls' })).sources[0]!;
    await inBatches([0, 1, 2, 3, 4], 5, (k) => client.createConversation(conversation(calls.id, 1000 + k, T0 + (CONVERSATIONS + k) * 60_000)));
    const second = await run('conversations');
    // The scan of changes (the default) lists every call and writes only the new ones; the others are unchanged.
    expect(second).toMatchObject({ status: 'succeeded', exported: 5 });
    expect(second.counts).toMatchObject({ read: CONVERSATIONS + 5, created: 5, updated: 0, unchanged: CONVERSATIONS, skipped: 0 });
    expect(sqliteRows(db, 'SELECT count(*) AS n FROM conversations')).toEqual([{ n: CONVERSATIONS + 5 }]);

    const third = await run('conversations');
    expect(third.exported).toBe(0);

    const full = await run('conversations', { fullRefresh: true });
    expect(full.exported).toBe(CONVERSATIONS + 5);
    expect(sqliteRows(db, 'SELECT count(*) AS n FROM conversations')).toEqual([{ n: CONVERSATIONS + 5 }]);
  });

  it.skipIf(!pgAvailable)('upserts message details into Postgres; a re-run does not duplicate', async () => {
    const first = await run('messages-pg');
    expect(first).toMatchObject({ status: 'succeeded', exported: MESSAGES });
    await run('messages-pg');
    const db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    try {
      const count = await db.query(`SELECT count(*)::int AS n, count(DISTINCT "messageId")::int AS ids FROM "${PG_TABLE}"`);
      expect(count.rows[0]).toEqual({ n: MESSAGES, ids: MESSAGES });
      const one = await db.query(`SELECT subject, body, sender, recipients FROM "${PG_TABLE}" WHERE subject = 'Subject 4'`);
      expect(one.rows[0].body).toMatch(/^Full body of message 4, long text/);
      expect(one.rows[0].sender).toEqual({ name: 'Ann', email: 'ann@example.com' });
      expect(one.rows[0].recipients).toEqual([expect.objectContaining({ email: 'bo@example.com' })]);
      const types = await db.query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 AND column_name IN ('sender', 'body')`, [PG_TABLE]);
      expect(Object.fromEntries(types.rows.map((r: { column_name: string; data_type: string }) => [r.column_name, r.data_type]))).toEqual({ sender: 'jsonb', body: 'text' });
    } finally {
      await db.end();
    }
  });

  it('keeps the old file when the service fails midway, and releases the lock', async () => {
    const file = join(dir, 'out/deals.jsonl');
    writeFileSync(file, 'previous export\n');
    let lists = 0;
    const failing: ExportService = {
      listSources: (...args) => client.listSources(...args),
      listObjectTypes: (...args) => client.listObjectTypes(...args),
      getConversation: (...args) => client.getConversation(...args),
      getMessage: (...args) => client.getMessage(...args),
      getDeal: (...args) => client.getDeal(...args),
      getAccount: (...args) => client.getAccount(...args),
      // The first list page answers; every later one fails as an outage would, after all retries.
      call: ((...args: Parameters<ServiceClient['call']>) => {
        if (String(args[0]).startsWith('list') && ++lists > 1) return Promise.reject(new FerryError('FERRY_SERVICE_UNREACHABLE', 'connection refused after all retries'));
        return client.call(...args);
      }) as ServiceClient['call'],
    };
    const summary = await run('deal-rows', { batchSize: 10 }, failing);
    expect(summary).toMatchObject({ status: 'failed', exitCode: 3, errorCode: 'FERRY_SERVICE_UNREACHABLE' });
    expect(summary.exported).toBeGreaterThan(0);
    expect(readFileSync(file, 'utf8')).toBe('previous export\n');
    expect(readdirSync(join(dir, 'out')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect((await store.lastRun(exportStateKey('deal-rows')))?.status).toBe('failed');
    expect((await run('deal-rows')).status).toBe('succeeded');
  });

  it('stops after the current page on a signal, writing what was read and keeping the watermark', async () => {
    const before = await store.cursor(exportStateKey('conversations'));
    const controller = new AbortController();
    const summary = await run('conversations', { fullRefresh: true, signal: controller.signal, onProgress: () => controller.abort() });
    expect(summary.status).toBe('aborted');
    expect(summary.exitCode).toBe(3);
    expect(summary.exported).toBe(50);
    expect(await store.cursor(exportStateKey('conversations'))).toEqual(before);
  });

  it('refuses to run while another run holds the export lock', async () => {
    expect(await store.acquireLock(exportStateKey('deal-rows'), 'someone-else', 60_000)).toBe(true);
    try {
      await expect(run('deal-rows')).rejects.toMatchObject({ code: 'FERRY_SYNC_LOCKED' });
    } finally {
      await store.releaseLock(exportStateKey('deal-rows'), 'someone-else');
    }
  });

  it('reports every problem of a broken export with its place in the file', async () => {
    const exp = config.exports.find((e) => e.name === 'broken')!;
    const { prepared, issues } = await inspectExport(config, exp);
    expect(prepared).toBeUndefined();
    const text = issues.map((i) => `${i.line} ${i.path}: ${i.message}`);
    expect(text).toEqual(expect.arrayContaining([
      expect.stringMatching(/^\d+ exports\[4\]\.filters\.sourceName: documents has no filter "sourceName"/),
      expect.stringMatching(/^\d+ exports\[4\]\.filters\.limit: limit is set by ferry/),
      expect.stringMatching(/^\d+ exports\[4\]\.incremental\.cursor: documents cannot be exported by a cursor/),
      expect.stringMatching(/table/),
    ]));
    const broken = readFileSync(join(dir, 'ferry.yaml'), 'utf8').split('\n').findIndex((line) => line.includes('name: broken')) + 1;
    expect(issues.every((i) => i.line > broken && i.line <= broken + 4)).toBe(true);
    expect(existsSync(join(dir, 'out/x.db'))).toBe(false);
  });
});

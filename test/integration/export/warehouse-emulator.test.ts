/**
 * Warehouse exports end to end: data pushed to the emulator through the real
 * client, exported by YAML into DuckDB, Parquet and (when the local server
 * answers) PostgreSQL with `shape: relational`; then new pushes, a soft
 * delete and a changed object type, exported incrementally.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { duckRows } from '../../helpers/duckdb.js';
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config/index.js';
import type { LoadedConfig } from '../../../src/config/index.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { inspectExport, runExport } from '../../../src/export/index.js';
import type { ExportSummary } from '../../../src/export/index.js';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { tempDir } from '../../unit/export/helpers.js';
import { PG_URL, postgresReachable } from '../../helpers/postgres.js';

const PG_SCHEMA = `ferry_wh_${process.pid}`;
const pgAvailable = await postgresReachable();

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2024-03-30T09:00:00Z');
const CALLS = 30;
const DEALS = 40;

let emu: RunningEmulator;
let client: ServiceClient;
let dir: string;
let config: LoadedConfig;
let store: StateStore;
let calls: { id: string };
let crm: { id: string };
let dealType: { id: string };

function call(i: number, startMs: number) {
  return {
    id: `call-${i}`, sourceId: calls.id, public: true, createdAt: startMs, startedAt: startMs, displayName: `Call ${i}`,
    participants: [{ id: 'agent', name: 'Agent' }, { email: `customer${i}@example.com`, name: 'Customer' }],
    transcript: [
      { speakerName: 'Agent', text: `Hello caller ${i}`, timestamp: startMs + 1000 },
      { speakerName: 'Customer', text: 'I need help', timestamp: startMs + 4000 },
      { speakerName: 'Agent', text: 'Sure', timestamp: startMs + 9000 },
    ],
  };
}

function dealRow(i: number, fields: Record<string, { value: unknown; fieldType: string }>) {
  return { id: `deal-${i}`, sourceId: crm.id, objectTypeId: dealType.id, name: `Deal ${i}`, public: true, createdAt: T0 + i * 1000, fields } as Parameters<ServiceClient['createRow']>[0];
}

async function exportAll(names: string[], fullRefresh = false): Promise<Record<string, ExportSummary>> {
  const out: Record<string, ExportSummary> = {};
  for (const name of names) {
    const { prepared, issues } = await inspectExport(config, config.exports.find((e) => e.name === name)!);
    expect(issues).toEqual([]);
    out[name] = await runExport(prepared!, { store, service: client }, { signal: new AbortController().signal, logger, fullRefresh });
  }
  return out;
}

function duck(sql: string, file = 'out/w.duckdb'): Promise<Record<string, unknown>[]> {
  return duckRows(':memory:', sql, `ATTACH '${join(dir, file)}' AS w (READ_ONLY); USE w; SET TimeZone = 'UTC'`);
}

async function postgres(sql: string): Promise<Record<string, unknown>[]> {
  const db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  try {
    return (await db.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await db.end();
  }
}

const SEEDED_DEALS = [
  { dealId: 'D-1', name: 'Acme renewal', accountName: 'Acme', stage: 'Negotiation', amount: 1200, closed: false },
  { dealId: 'D-2', name: 'Beta pilot', accountName: 'Beta', stage: 'Discovery', amount: 300, closed: false },
  { dealId: 'D-3', name: 'Gamma expansion', accountName: 'Gamma', stage: 'Discovery', amount: 800, closed: false },
];
const meeting = (title: string, startTime: string, crm: { id: string; name: string; type: 'opportunity' | 'account' }) => ({
  sourceId: 'gong', title, startTime, crm, participants: [{ name: 'Ann', email: 'ann@example.com' }],
  transcript: [{ speaker: 'Ann', text: 'Hello', startTime: 0, endTime: 3 }],
});
const SEEDED_MEETINGS = [
  meeting('Acme kickoff', '2024-01-10T10:00:00Z', { id: 'D-1', name: 'Acme renewal', type: 'opportunity' }),
  meeting('Acme pricing', '2024-02-10T10:00:00Z', { id: 'acme', name: 'Acme', type: 'account' }),
  meeting('Beta intro', '2024-01-05T10:00:00Z', { id: 'D-2', name: 'Beta pilot', type: 'opportunity' }),
];

/** docs/exports.md's "deals by stage with their latest conversation", in the service's names (the exports here keep naming: api). */
const DEALS_WITH_LATEST_CONVERSATION = `
WITH linked AS (
  SELECT d.dealId, c.title, c.startTime
  FROM deals d
  JOIN conversations c
    ON ((c.crm->>'type') = 'opportunity' AND (c.crm->>'id') = d.dealId)
    OR ((c.crm->>'type') = 'account' AND (c.crm->>'name') = d.accountName)
)
SELECT d.stage, d.name AS deal, d.amount,
       arg_max(l.title, l.startTime) AS latest_conversation,
       max(l.startTime) AS latest_at
FROM deals d LEFT JOIN linked l USING (dealId)
GROUP BY ALL
ORDER BY d.stage, latest_at DESC NULLS LAST`;

const MIRRORS = ['mirror-duck', 'mirror-sqlite', ...(pgAvailable ? ['mirror-pg'] : [])];
const EXPORTS = ['calls-duck', 'deals-duck', 'calls-parquet', ...(pgAvailable ? ['calls-pg'] : []), ...MIRRORS];
const CRM_EXPORTS = ['crm-deals', 'crm-meetings'];

beforeAll(async () => {
  // CRM deals come from a connected CRM, never from /v1: the seed stands in for it, with meetings linked to them.
  emu = await startEmulator({ db: ':memory:', seed: { deals: SEEDED_DEALS, conversations: SEEDED_MEETINGS } });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.devKey ?? '', concurrency: 8, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  crm = await client.createSource({ name: 'crm', displayName: 'CRM' });
  calls = await client.createSource({ name: 'calls', displayName: 'Calls' });
  dealType = await client.createObjectType({
    sourceId: crm.id, name: 'deal', displayName: 'Deal',
    fieldDefinitions: [{ name: 'amount', fieldType: 'double' }, { name: 'stage', fieldType: 'string' }],
  });
  for (let i = 0; i < DEALS; i++) await client.createRow(dealRow(i, { amount: { value: i * 10.5, fieldType: 'double' }, stage: { value: i % 2 ? 'Won' : 'Open', fieldType: 'string' } }));
  // Two days apart across a month boundary: March and April partitions.
  for (let i = 0; i < CALLS; i++) await client.createConversation(call(i, T0 + i * 3_600_000 * 4));

  dir = tempDir();
  writeFileSync(join(dir, 'ferry.yaml'), `version: 1
exports:
  - name: calls-duck
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    destination: { type: duckdb, path: out/w.duckdb, table: conversations, shape: relational }
  - name: deals-duck
    resource: rows
    naming: api
    metadata: false
    filters: { source: crm, objectType: deal }
    incremental: { cursor: createdAt }
    destination: { type: duckdb, path: out/w.duckdb, table: deal_rows, shape: relational }
  - name: calls-parquet
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    destination: { type: parquet, path: out/lake, table: conversations, mode: append, partition: { field: startTime, by: month } }
  - name: mirror-duck
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    deletes: mirror
    destination: { type: duckdb, path: out/mirror.duckdb, table: conversations, shape: relational }
  - name: mirror-sqlite
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    deletes: mirror
    destination: { type: sqlite-table, path: out/mirror.db, table: conversations, shape: relational }
  - name: mirror-pg
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    deletes: mirror
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${PG_SCHEMA}, table: mirrored, shape: relational }
  - name: mirror-parquet
    resource: conversations
    naming: api
    metadata: false
    deletes: mirror
    destination: { type: parquet, path: out/nope, table: conversations }
  - name: crm-deals
    resource: deals
    naming: api
    metadata: false
    details: true
    destination: { type: duckdb, path: out/crm.duckdb, table: deals, shape: relational }
  - name: crm-meetings
    resource: conversations
    naming: api
    metadata: false
    details: true
    destination: { type: duckdb, path: out/crm.duckdb, table: conversations, shape: relational }
  - name: calls-pg
    resource: conversations
    naming: api
    metadata: false
    details: true
    filters: { source: calls }
    incremental: { cursor: startTime }
    destination: { type: postgres-table, url: "${PG_URL}", schema: ${PG_SCHEMA}, table: conversations, shape: relational }
`);
  config = await loadConfig(join(dir, 'ferry.yaml'));
  store = await openStateStore('sqlite::memory:');
}, 60_000);

afterAll(async () => {
  await store?.close();
  await client?.close();
  await emu?.close();
  if (pgAvailable) await postgres(`DROP SCHEMA IF EXISTS "${PG_SCHEMA}" CASCADE`);
});

const TALK_TIME = `SELECT t.speaker, count(*)::INT AS lines FROM conversations c JOIN conversation_transcript t USING (conversationId) GROUP BY 1 ORDER BY 1`;

describe('warehouse exports against the emulator', () => {
  it('first export: typed tables that join, Parquet partitions DuckDB reads', async () => {
    const summaries = await exportAll(EXPORTS);
    for (const name of EXPORTS) expect(summaries[name]).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(summaries['calls-duck']!.exported).toBe(CALLS);
    expect(summaries['deals-duck']!.exported).toBe(DEALS);

    expect(await duck(TALK_TIME)).toEqual([{ speaker: 'Agent', lines: 2 * CALLS }, { speaker: 'Customer', lines: CALLS }]);
    expect(await duck("SELECT typeof(startTime) AS t FROM conversations LIMIT 1")).toEqual([{ t: 'TIMESTAMP WITH TIME ZONE' }]);
    expect(await duck("SELECT stage, count(*)::INT AS n, sum(amount) AS total FROM deal_rows GROUP BY 1 ORDER BY 1")).toEqual([
      { stage: 'Open', n: 20, total: 10.5 * (0 + 2 + 4 + 6 + 8 + 10 + 12 + 14 + 16 + 18 + 20 + 22 + 24 + 26 + 28 + 30 + 32 + 34 + 36 + 38) },
      { stage: 'Won', n: 20, total: 10.5 * (1 + 3 + 5 + 7 + 9 + 11 + 13 + 15 + 17 + 19 + 21 + 23 + 25 + 27 + 29 + 31 + 33 + 35 + 37 + 39) },
    ]);
    expect(await duck("SELECT count(*)::INT AS n FROM conversation_participants WHERE email LIKE 'customer%'")).toEqual([{ n: CALLS }]);

    const lake = join(dir, 'out/lake');
    expect(readdirSync(join(lake, 'conversations')).sort()).toEqual(['month=2024-03', 'month=2024-04']);
    expect(await duck(`SELECT count(*)::INT AS n, count(DISTINCT conversationId)::INT AS ids FROM read_parquet('${lake}/conversations/*/*.parquet', hive_partitioning = true)`)).toEqual([{ n: CALLS, ids: CALLS }]);

    if (pgAvailable) {
      expect(await postgres(`SELECT t.speaker, count(*)::int AS lines FROM "${PG_SCHEMA}".conversations c JOIN "${PG_SCHEMA}".conversation_transcript t USING ("conversationId") GROUP BY 1 ORDER BY 1`)).toEqual([
        { speaker: 'Agent', lines: 2 * CALLS },
        { speaker: 'Customer', lines: CALLS },
      ]);
    }
  });

  it('CRM deals by stage with their latest conversation, as docs/exports.md queries them', async () => {
    const summaries = await exportAll(CRM_EXPORTS);
    expect(summaries['crm-deals']).toMatchObject({ status: 'succeeded', exported: SEEDED_DEALS.length });
    expect(await duck(DEALS_WITH_LATEST_CONVERSATION, 'out/crm.duckdb')).toEqual([
      // BIGINT comes back from DuckDB's JSON reader as text.
      { stage: 'Discovery', deal: 'Beta pilot', amount: '300', latest_conversation: 'Beta intro', latest_at: '2024-01-05 10:00:00+00' },
      { stage: 'Discovery', deal: 'Gamma expansion', amount: '800', latest_conversation: null, latest_at: null },
      { stage: 'Negotiation', deal: 'Acme renewal', amount: '1200', latest_conversation: 'Acme pricing', latest_at: '2024-02-10 10:00:00+00' },
    ]);
  });

  it('incremental after new pushes and a soft delete: only the new records; the deleted one stays in the warehouse', async () => {
    for (let i = CALLS; i < CALLS + 3; i++) await client.createConversation(call(i, T0 + i * 3_600_000 * 4));
    await client.deleteConversation({ remoteId: 'call-2', sourceId: calls.id });
    const summaries = await exportAll(EXPORTS);
    for (const name of ['calls-duck', 'calls-parquet', ...(pgAvailable ? ['calls-pg'] : [])]) {
      expect(summaries[name]).toMatchObject({ status: 'succeeded', exported: 3 });
    }
    expect(summaries['deals-duck']!.exported).toBe(0);
    // The service's read side no longer lists call-2, and an export cannot learn of deletions: the warehouse keeps it.
    expect(await duck("SELECT count(*)::INT AS n, count(*) FILTER (title = 'Call 2')::INT AS deleted FROM conversations")).toEqual([{ n: CALLS + 3, deleted: 1 }]);
    const lake = join(dir, 'out/lake');
    const files = readdirSync(join(lake, 'conversations'), { recursive: true }).filter((name) => String(name).endsWith('.parquet'));
    expect(files).toHaveLength(3); // two of the first run, one (April) of this one
    expect(await duck(`SELECT count(*)::INT AS n FROM read_parquet('${lake}/conversations/*/*.parquet')`)).toEqual([{ n: CALLS + 3 }]);
    if (pgAvailable) expect(await postgres(`SELECT count(*)::int AS n FROM "${PG_SCHEMA}".conversations`)).toEqual([{ n: CALLS + 3 }]);

    // deletes: mirror lists the live keys after the incremental read and drops call-2 with its transcript lines.
    for (const name of MIRRORS) expect(summaries[name]).toMatchObject({ status: 'succeeded', exported: 3, counts: expect.objectContaining({ deleted: 1 }) });
    const mirrored = "SELECT count(*)::INT AS n, count(*) FILTER (title = 'Call 2')::INT AS deleted FROM conversations";
    expect(await duck(mirrored, 'out/mirror.duckdb')).toEqual([{ n: CALLS + 2, deleted: 0 }]);
    expect(await duck('SELECT count(DISTINCT conversationId)::INT AS n FROM conversation_transcript', 'out/mirror.duckdb')).toEqual([{ n: CALLS + 2 }]);
    const sqlite = new Database(join(dir, 'out/mirror.db'), { readonly: true });
    try {
      expect(sqlite.prepare('SELECT count(*) AS n FROM conversations').get()).toEqual({ n: CALLS + 2 });
      expect(sqlite.prepare('SELECT count(DISTINCT conversationId) AS n FROM conversation_participants').get()).toEqual({ n: CALLS + 2 });
    } finally {
      sqlite.close();
    }
    if (pgAvailable) {
      expect(await postgres(`SELECT count(*)::int AS n FROM "${PG_SCHEMA}".mirrored`)).toEqual([{ n: CALLS + 2 }]);
      expect(await postgres(`SELECT count(DISTINCT "conversationId")::int AS n FROM "${PG_SCHEMA}".mirrored_transcript`)).toEqual([{ n: CALLS + 2 }]);
    }
  });

  it('deletes: mirror on a destination that cannot delete fails before reading', async () => {
    const { 'mirror-parquet': summary } = await exportAll(['mirror-parquet']);
    expect(summary).toMatchObject({ status: 'failed', exitCode: 1, errorCode: 'FERRY_CONFIG_INVALID', exported: 0 });
    expect(summary!.error).toContain('cannot delete records');
  });

  it('a changed object type: the new field becomes a column, a field that changed kind is widened, a removed one stays', async () => {
    await client.updateObjectType(dealType.id, {
      fieldDefinitions: [{ name: 'amount', fieldType: 'string' }, { name: 'probability', fieldType: 'double' }],
    });
    await client.createRow(dealRow(DEALS, { amount: { value: 'about 500', fieldType: 'string' }, probability: { value: 0.4, fieldType: 'double' } }));
    const { 'deals-duck': summary } = await exportAll(['deals-duck']);
    expect(summary).toMatchObject({ status: 'succeeded', exported: 1 });
    expect(await duck(`SELECT name, amount, probability, stage FROM deal_rows WHERE name IN ('Deal 3', 'Deal ${DEALS}') ORDER BY name`)).toEqual([
      { name: 'Deal 3', amount: '31.5', probability: null, stage: 'Won' },
      { name: `Deal ${DEALS}`, amount: 'about 500', probability: 0.4, stage: null },
    ]);
    expect(await duck("SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'deal_rows' AND column_name IN ('amount', 'probability') ORDER BY 1")).toEqual([
      { c: 'amount', t: 'VARCHAR' },
      { c: 'probability', t: 'DOUBLE' },
    ]);
  });
});

/**
 * STRUCT and LIST columns where the spec gives a nested value's shape,
 * end to end against the emulator and read back by readers that are not
 * ferry's: the pure-JS `hyparquet` reads the Parquet files, a DuckDB
 * connection of the test's own reads the database and the same files.
 * Counts, unique keys (child rows' `_ferry_id` too), unicode, nulls,
 * timestamps, and the layout kept: an export whose layout was recorded
 * before `nested` keeps JSON columns.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { duckRows } from '../../helpers/duckdb.js';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
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

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2024-03-01T09:00:00Z');
const CALLS = 12;
const MAILS = 7;

let emu: RunningEmulator;
let client: ServiceClient;
let dir: string;
let config: LoadedConfig;
let store: StateStore;

async function run(name: string) {
  const exp = config.exports.find((e) => e.name === name)!;
  const { prepared, issues } = await inspectExport(config, exp);
  expect(issues).toEqual([]);
  return runExport(prepared!, { store, service: client }, { signal: new AbortController().signal, logger, batchSize: 5 });
}

/** A DuckDB connection of the test's own (not the destination's), rows as JSON. */
function duck(sql: string, file = ':memory:'): Promise<Record<string, unknown>[]> {
  return duckRows(file === ':memory:' ? file : join(dir, file), sql, "SET TimeZone = 'UTC'");
}

/** Every row of a dataset's Parquet files, read with hyparquet. */
async function hyparquet(dataset: string): Promise<Record<string, unknown>[]> {
  const folder = join(dir, 'out/lake', dataset);
  const rows: Record<string, unknown>[] = [];
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.parquet'))) {
    rows.push(...(await parquetReadObjects({ file: await asyncBufferFromFile(join(folder, name)) })));
  }
  return rows;
}

beforeAll(async () => {
  emu = await startEmulator({ db: ':memory:' });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.devKey ?? '', concurrency: 4, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  const calls = (await client.createSource({ name: 'calls', displayName: 'Calls' })).id;
  for (let i = 0; i < CALLS; i++) {
    await client.createConversation({
      id: `call-${i}`, sourceId: calls, public: true, createdAt: T0 + i * 60_000, startedAt: T0 + i * 60_000, displayName: `Call ${i}`,
      participants: [{ id: 'agent', name: 'Agent Ünal' }, { email: `customer${i}@example.com` }],
      transcript: [
        { speakerName: 'Agent Ünal', text: `Hello ${i}`, timestamp: T0 + i * 60_000 + 1000 },
        { speakerName: 'Customer', text: 'Grüße 👋', timestamp: T0 + i * 60_000 + 4000 },
      ],
    });
  }
  const mail = (await client.createSource({ name: 'mail', displayName: 'Mail' })).id;
  for (let i = 0; i < MAILS; i++) {
    await client.createMessage({
      id: `mail-${i}`, sourceId: mail, public: true, createdAt: T0 + i * 1000, displayName: `Subject ${i}`, body: `Body ${i} ✉️`,
      sender: { email: 'ann@example.com', name: 'Ann' }, recipients: [{ email: 'bo@example.com' }, { email: 'cy@example.com', name: 'Cy' }], threadId: `t${i % 3}`,
      attachments: i % 2 === 0 ? [{ name: `report-${i}.pdf`, url: 'https://example.com/r.pdf', mimeType: 'application/pdf', sizeBytes: 1000 + i }] : [],
    });
  }
  dir = tempDir();
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
exports:
  - name: calls-duckdb
    resource: conversations
    details: true
    destination: { type: duckdb, path: out/warehouse.duckdb, table: conversations }
  - name: calls-lake
    resource: conversations
    details: true
    destination: { type: parquet, path: out/lake, table: conversations }
  - name: calls-lake-relational
    resource: conversations
    details: true
    destination: { type: parquet, path: out/lake, table: calls, shape: relational }
  - name: mail-lake
    resource: messages
    details: true
    destination: { type: parquet, path: out/lake, table: messages }
  - name: calls-recorded
    resource: conversations
    details: true
    destination: { type: duckdb, path: out/recorded.duckdb, table: conversations }
  - name: calls-asked-json
    resource: conversations
    details: true
    nested: json
    destination: { type: duckdb, path: out/recorded.duckdb, table: calls_json }
  - name: calls-api-struct
    resource: conversations
    details: true
    naming: api
    nested: struct
    destination: { type: duckdb, path: out/recorded.duckdb, table: calls_api }
`,
  );
  config = await loadConfig(join(dir, 'ferry.yaml'));
  store = await openStateStore(`sqlite:${join(dir, 'state.db')}`);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await emu?.close();
});

describe('nested values as STRUCT and LIST', () => {
  it('DuckDB: participants and transcript are lists of structs, recordings and crm structs, read by a connection of its own', async () => {
    expect(await run('calls-duckdb')).toMatchObject({ status: 'succeeded', exported: CALLS });
    expect(await store.exportLayout(exportStateKey('calls-duckdb'))).toEqual({ naming: 'snake_case', metadata: true, nested: 'struct' });
    const types = await duck(
      "SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'conversations' AND column_name IN ('participants', 'transcript', 'crm', 'recordings', 'summary') ORDER BY 1",
      'out/warehouse.duckdb',
    );
    expect(types).toEqual([
      { c: 'crm', t: 'STRUCT(id VARCHAR, "name" VARCHAR, "type" VARCHAR)' },
      { c: 'participants', t: 'STRUCT("name" VARCHAR, email VARCHAR, attended BOOLEAN)[]' },
      { c: 'recordings', t: 'STRUCT(videoUrl VARCHAR, videoStreamUrl VARCHAR, audioUrl VARCHAR, audioStreamUrl VARCHAR)' },
      { c: 'summary', t: 'JSON' },
      { c: 'transcript', t: 'STRUCT(speaker VARCHAR, "text" VARCHAR, start_time DOUBLE, end_time DOUBLE)[]' },
    ]);
    expect(
      await duck(
        `SELECT count(*)::INT AS n, count(DISTINCT conversation_id)::INT AS ids,
                count(*) FILTER (participants[1].name = 'Agent Ünal' AND participants[2].name IS NULL AND participants[2].email LIKE 'customer%')::INT AS people,
                count(*) FILTER (len(transcript) = 2 AND transcript[2].text = 'Grüße 👋' AND transcript[2].start_time > transcript[1].start_time)::INT AS lines,
                count(*) FILTER (crm IS NULL)::INT AS no_crm, typeof(any_value(start_time)) AS t
         FROM conversations`,
        'out/warehouse.duckdb',
      ),
    ).toEqual([{ n: CALLS, ids: CALLS, people: CALLS, lines: CALLS, no_crm: CALLS, t: 'TIMESTAMP WITH TIME ZONE' }]);
    // A re-run merges over the same rows: still one per key.
    expect(await run('calls-duckdb')).toMatchObject({ status: 'succeeded', exported: CALLS });
    expect(await duck('SELECT count(*)::INT AS n, sum(len(participants))::INT AS people FROM conversations', 'out/warehouse.duckdb')).toEqual([{ n: CALLS, people: CALLS * 2 }]);
  });

  it('Parquet, read by hyparquet: counts, unique keys, unicode, nulls, STRUCT/LIST values, timestamps; DuckDB reads the same columns', async () => {
    expect(await run('calls-lake')).toMatchObject({ status: 'succeeded', exported: CALLS });
    const rows = await hyparquet('conversations');
    expect(rows).toHaveLength(CALLS);
    expect(new Set(rows.map((row) => row.conversation_id)).size).toBe(CALLS);
    const first = rows.find((row) => row.title === 'Call 0')!;
    expect(first.participants).toEqual([
      { name: 'Agent Ünal', email: null, attended: true },
      { name: null, email: 'customer0@example.com', attended: true },
    ]);
    expect(first.transcript).toEqual([
      { speaker: 'Agent Ünal', text: 'Hello 0', start_time: expect.any(Number), end_time: expect.any(Number) },
      { speaker: 'Customer', text: 'Grüße 👋', start_time: expect.any(Number), end_time: expect.any(Number) },
    ]);
    expect(first.crm).toBeNull();
    expect(first.start_time).toEqual(new Date(T0));
    expect(first._ferry_loaded_at).toBeInstanceOf(Date);
    expect(rows.every((row) => row.category === null)).toBe(true);

    const files = `${join(dir, 'out/lake/conversations')}/*.parquet`;
    expect(await duck(`SELECT typeof(participants) AS p, typeof(transcript) AS t, count(*)::INT AS n, sum(len(transcript))::INT AS lines FROM read_parquet('${files}') GROUP BY ALL`)).toEqual([
      { p: 'STRUCT("name" VARCHAR, email VARCHAR, attended BOOLEAN)[]', t: 'STRUCT(speaker VARCHAR, "text" VARCHAR, start_time DOUBLE, end_time DOUBLE)[]', n: CALLS, lines: CALLS * 2 },
    ]);
  });

  it('Parquet messages: sender a struct, recipients and attachments lists of structs (sizes BIGINT)', async () => {
    expect(await run('mail-lake')).toMatchObject({ status: 'succeeded', exported: MAILS });
    const rows = await hyparquet('messages');
    expect(rows).toHaveLength(MAILS);
    expect(new Set(rows.map((row) => row.message_id)).size).toBe(MAILS);
    const zero = rows.find((row) => row.subject === 'Subject 0')!;
    expect(zero.sender).toEqual({ name: 'Ann', email: 'ann@example.com' });
    expect(zero.recipients).toEqual([{ name: null, email: 'bo@example.com' }, { name: 'Cy', email: 'cy@example.com' }]);
    expect(zero.attachments).toEqual([{ id: expect.any(String), filename: 'report-0.pdf', content_type: 'application/pdf', size: 1000n }]);
    expect(zero.body).toBe('Body 0 ✉️');
    expect(rows.find((row) => row.subject === 'Subject 1')!.attachments).toEqual([]);
    expect(zero.created_at).toEqual(new Date(T0));
  });

  it('relational Parquet: child datasets with a unique _ferry_id, read by hyparquet', async () => {
    expect(await run('calls-lake-relational')).toMatchObject({ status: 'succeeded', exported: CALLS });
    const lines = await hyparquet('call_transcript');
    expect(lines).toHaveLength(CALLS * 2);
    expect(new Set(lines.map((line) => line._ferry_id)).size).toBe(CALLS * 2);
    expect(lines.filter((line) => line.text === 'Grüße 👋' && line.position === 1n)).toHaveLength(CALLS);
    const parents = await hyparquet('calls');
    expect(parents).toHaveLength(CALLS);
    expect(Object.keys(parents[0]!)).not.toContain('transcript');
  });

  it('an export whose layout was recorded before `nested` keeps JSON columns', async () => {
    await store.recordExportLayout(exportStateKey('calls-recorded'), { naming: 'snake_case', metadata: true });
    expect(await run('calls-recorded')).toMatchObject({ status: 'succeeded', exported: CALLS });
    expect(await store.exportLayout(exportStateKey('calls-recorded'))).toEqual({ naming: 'snake_case', metadata: true, nested: 'json' });
    expect(
      await duck("SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'conversations' AND column_name IN ('participants', 'transcript') ORDER BY column_name", 'out/recorded.duckdb'),
    ).toEqual([{ t: 'JSON' }, { t: 'JSON' }]);
  });

  it('the option says it: nested: json gives a new export JSON columns; nested: struct gives STRUCT with the API names', async () => {
    expect(await run('calls-asked-json')).toMatchObject({ status: 'succeeded', exported: CALLS });
    expect(await run('calls-api-struct')).toMatchObject({ status: 'succeeded', exported: CALLS });
    expect(await store.exportLayout(exportStateKey('calls-api-struct'))).toEqual({ naming: 'api', metadata: true, nested: 'struct' });
    expect(
      await duck(
        "SELECT table_name AS tb, data_type AS t FROM information_schema.columns WHERE table_name IN ('calls_json', 'calls_api') AND column_name = 'participants' ORDER BY 1",
        'out/recorded.duckdb',
      ),
    ).toEqual([
      { tb: 'calls_api', t: 'STRUCT("name" VARCHAR, email VARCHAR, attended BOOLEAN)[]' },
      { tb: 'calls_json', t: 'JSON' },
    ]);
    expect(await duck("SELECT count(*)::INT AS n FROM calls_api WHERE transcript[2].startTime > transcript[1].startTime", 'out/recorded.duckdb')).toEqual([{ n: CALLS }]);
  });
});

/**
 * Whole syncs from each database into the embedded emulator through the
 * runner (`runProject`): a first run pushes every row, a second run after
 * inserts and updates pushes only those, and the rows the service holds at
 * the end match the table, including a row deleted from it (`deletes: mirror`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { runProject } from '../../../src/pipeline/run-project.js';

const PG_URL = process.env.FERRY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MY_URL = process.env.FERRY_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const TABLE = `ferry_e2e_deals_${process.pid}`;

interface Db {
  type: string;
  connection: string;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
  ts: string;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(db: Db): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), `ferry-e2e-${db.type}-`));
  dirs.push(dir);
  const configFile = join(dir, 'ferry.yaml');
  writeFileSync(
    configFile,
    `version: 1
service:
  baseUrl: embedded
  maxRequestsPerSecond: 1000
state:
  url: sqlite:${join(dir, 'ferry.db')}
emulator:
  db: ${join(dir, 'emulator.db')}
syncs:
  - name: deals
    source:
      type: ${db.type}
      ${db.connection}
      table: ${TABLE}
      primaryKey: id
      fetchSize: 7
    incremental: { cursor: updated_at }
    deletes: mirror
    maxDeletePercent: 50
    target:
      type: row
      source: { name: warehouse, displayName: Warehouse }
      objectType: { name: deal, displayName: Deal }
      map:
        id: "$string(id)"
        name: name
        public: true
        fields:
          stage: stage
          amount: amount
`,
  );
  return { dir, configFile };
}

async function serviceRows(dir: string): Promise<Map<string, { name: unknown; stage: unknown }>> {
  const emulator = await startEmulator({ db: join(dir, 'emulator.db') });
  const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey!, retry: { maxAttempts: 1 } });
  try {
    const { sources } = await client.listSources({ name: 'warehouse' });
    const source = sources.find((s) => s.name === 'warehouse')!;
    const { objectTypes } = await client.listObjectTypes({ sourceId: source.id });
    const type = objectTypes.find((t) => t.name === 'deal')!;
    const rows = new Map<string, { name: unknown; stage: unknown }>();
    for await (const row of client.iterateRows({ sourceId: source.id, objectTypeId: type.id, limit: 50 })) {
      const fields = (row as { fields?: Record<string, { value?: unknown }> }).fields ?? {};
      rows.set(row.remoteId, { name: (row as { name?: unknown }).name, stage: fields.stage?.value });
    }
    return rows;
  } finally {
    await client.close();
    await emulator.close();
  }
}

async function scenario(db: Db): Promise<void> {
  const { dir, configFile } = project(db);
  await db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  await db.exec(`CREATE TABLE ${TABLE} (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, stage VARCHAR(20), amount DECIMAL(12,2), updated_at ${db.ts})`);
  try {
    const values = Array.from({ length: 30 }, (_, i) => `(${i + 1}, 'Deal ${i + 1}', 'Engaging', ${(i + 1) * 100}.50, '2024-01-01 00:00:${String(Math.floor(i / 4)).padStart(2, '0')}.000001')`);
    await db.exec(`INSERT INTO ${TABLE} VALUES ${values.join(', ')}`);

    const [first] = await runProject({ configFile, syncNames: [], quiet: true });
    expect(first).toMatchObject({ status: 'succeeded', counts: { read: 30, created: 30, updated: 0, failed: 0 } });
    expect(first!.cursor).toMatchObject({ key: '30' });

    const [idle] = await runProject({ configFile, syncNames: [], quiet: true });
    expect(idle).toMatchObject({ status: 'succeeded', counts: { read: 0, created: 0, updated: 0 } });

    await db.exec(`INSERT INTO ${TABLE} VALUES (31, 'Deal 31', 'Prospecting', 10, '2024-02-01 00:00:00.000001')`);
    await db.exec(`UPDATE ${TABLE} SET stage = 'Won', updated_at = '2024-02-01 00:00:00.000002' WHERE id IN (3, 17)`);
    const [second] = await runProject({ configFile, syncNames: [], quiet: true });
    expect(second).toMatchObject({ status: 'succeeded', counts: { read: 3, created: 1, updated: 2, unchanged: 0, failed: 0 } });

    const rows = await serviceRows(dir);
    expect(rows.size).toBe(31);
    expect(rows.get('3')).toEqual({ name: 'Deal 3', stage: 'Won' });
    expect(rows.get('17')).toEqual({ name: 'Deal 17', stage: 'Won' });
    expect(rows.get('31')).toEqual({ name: 'Deal 31', stage: 'Prospecting' });
    expect(rows.get('4')).toEqual({ name: 'Deal 4', stage: 'Engaging' });

    // A deleted row is invisible to an incremental read; the key scan of
    // `deletes: mirror` finds it gone and deletes it in the service.
    await db.exec(`DELETE FROM ${TABLE} WHERE id = 5`);
    const [third] = await runProject({ configFile, syncNames: [], quiet: true });
    expect(third).toMatchObject({ status: 'succeeded', counts: { read: 0, deleted: 1, failed: 0 } });
    const remaining = await serviceRows(dir);
    expect(remaining.size).toBe(30);
    expect(remaining.has('5')).toBe(false);
  } finally {
    await db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
    await db.close();
  }
}

describe('database → emulator, end to end', () => {
  it('postgres: first run, idle run, then only the inserted and updated rows', async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await scenario({
      type: 'postgres',
      connection: `url: ${PG_URL}`,
      ts: 'timestamptz',
      exec: async (sql) => void (await client.query(sql)),
      close: () => client.end(),
    });
  });

  it('mysql (MariaDB): first run, idle run, then only the inserted and updated rows', async () => {
    const conn = await mysql.createConnection(MY_URL);
    await scenario({
      type: 'mysql',
      connection: `url: ${MY_URL}`,
      ts: 'datetime(6)',
      exec: async (sql) => void (await conn.query(sql)),
      close: () => conn.end(),
    });
  });

  it('sqlite: first run, idle run, then only the inserted and updated rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-e2e-sqlite-db-'));
    dirs.push(dir);
    const file = join(dir, 'crm.db');
    const lite = new Database(file);
    await scenario({
      type: 'sqlite',
      connection: `url: sqlite://${file}`,
      ts: 'DATETIME',
      exec: async (sql) => void lite.exec(sql),
      close: async () => void lite.close(),
    });
  });
});

/**
 * deletes: mirror on each table destination with more live keys than one
 * load chunk, held partly in a temporary file (a KeySpool past its memory
 * budget): every listed key kept, every other deleted, with child rows.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import duckdb from '../../../connectors/destinations/duckdb/index.js';
import postgresTable from '../../../connectors/destinations/postgres-table/index.js';
import sqliteTable from '../../../connectors/destinations/sqlite-table/index.js';
import { KeySpool } from '../../../src/export/key-spool.js';
import type { DestinationDefinition } from '../../../src/sdk/index.js';
import { openWriter, tempDir } from '../../unit/export/helpers.js';
import { dropSchemas, freshSchema, PG_URL, pgQuery, postgresReachable } from '../../helpers/postgres.js';

const RECORDS = 25_000;
const GONE = new Set(['d7', 'd10000', 'd24999']);
const pgAvailable = await postgresReachable();
const schema = freshSchema('ferry_retain');

afterAll(async () => {
  if (pgAvailable) await dropSchemas(schema);
});

interface Case {
  name: string;
  destination: DestinationDefinition;
  options: (dir: string) => Record<string, unknown>;
  /** Parents and child rows left, counted in the destination. */
  count: (dir: string) => Promise<{ parents: number; children: number }>;
  skip?: boolean;
}

async function duckCount(file: string): Promise<{ parents: number; children: number }> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    const read = async (table: string) => Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM ${table}`)).getRowObjectsJS()[0]!.n);
    return { parents: await read('deals'), children: await read('deal_contacts') };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const CASES: Case[] = [
  {
    name: 'sqlite-table',
    destination: sqliteTable,
    options: () => ({ path: 'out.db', table: 'deals', shape: 'relational' }),
    count: async (dir) => {
      const db = new Database(join(dir, 'out.db'), { readonly: true });
      try {
        const read = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
        return { parents: read('deals'), children: read('deal_contacts') };
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'duckdb',
    destination: duckdb,
    options: () => ({ path: 'out.duckdb', table: 'deals', shape: 'relational' }),
    count: (dir) => duckCount(join(dir, 'out.duckdb')),
  },
  {
    name: 'postgres-table',
    destination: postgresTable,
    options: () => ({ url: PG_URL, schema, table: 'deals', shape: 'relational' }),
    count: async () => {
      const read = async (table: string) => (await pgQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".${table}`))[0]!.n;
      return { parents: await read('deals'), children: await read('deal_contacts') };
    },
    skip: !pgAvailable,
  },
];

describe.each(CASES)('$name: deletes: mirror past one load chunk', ({ destination, options, count, skip }) => {
  it.skipIf(skip)('keeps the listed keys and deletes the rest with their child rows', async () => {
    const dir = tempDir();
    const records = Array.from({ length: RECORDS }, (_, i) => ({ dealId: `d${i}`, name: `Deal ${i}`, contacts: [{ email: `c${i}@x.y` }] }));
    const writer = await openWriter(destination, options(dir), dir);
    for (let start = 0; start < RECORDS; start += 5_000) await writer.write({ stream: 'deals', key: 'dealId', records: records.slice(start, start + 5_000) });
    const live = new KeySpool(10_000);
    try {
      for (const { dealId } of records) if (!GONE.has(dealId)) live.add(dealId);
      expect(await writer.retain!({ stream: 'deals', key: 'dealId', keys: live })).toBe(GONE.size);
    } finally {
      live.close();
    }
    await writer.close();
    expect(await count(dir)).toEqual({ parents: RECORDS - GONE.size, children: RECORDS - GONE.size });
  });
});

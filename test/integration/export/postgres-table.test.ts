/** The postgres-table destination against the local server: schema, types, new columns, errors without secrets. */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import postgresTable from '../../../connectors/destinations/postgres-table/index.js';
import { contextFor, conversationRecord, openWriter, tempDir } from '../../unit/export/helpers.js';
import { PG_URL, postgresReachable } from '../../helpers/postgres.js';

const SCHEMA = `ferry_export_${process.pid}`;
const available = await postgresReachable();

async function query(sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  if (available) await query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

describe('postgres-table destination', () => {
  it.skipIf(!available)('creates schema and table, adds columns as they appear, upserts in multi-row statements', async () => {
    const writer = await openWriter(postgresTable, { url: PG_URL, schema: SCHEMA, table: 'deals' }, tempDir());
    const many = Array.from({ length: 1200 }, (_, i) => ({ dealId: `d${i}`, name: `Deal ${i}`, amount: i % 2 ? i + 0.25 : i, closed: i % 3 === 0, owner: { name: 'Ann' } }));
    await writer.write({ stream: 'deals', key: 'dealId', records: many });
    await writer.write({ stream: 'deals', key: 'dealId', records: [{ dealId: 'd1', name: 'Renamed', amount: 2, closed: true, owner: null, contacts: [{ email: 'x@y.z' }] }] });
    await writer.close();
    const counted = await query(`SELECT count(*)::int AS n FROM "${SCHEMA}".deals`);
    expect(counted).toEqual([{ n: 1200 }]);
    const d1 = await query(`SELECT name, amount::float8 AS amount, closed, owner, contacts FROM "${SCHEMA}".deals WHERE "dealId" = 'd1'`);
    expect(d1).toEqual([{ name: 'Renamed', amount: 2, closed: true, owner: null, contacts: [{ email: 'x@y.z' }] }]);
    const d3 = await query(`SELECT amount::float8 AS amount, contacts FROM "${SCHEMA}".deals WHERE "dealId" = 'd3'`);
    expect(d3).toEqual([{ amount: 3.25, contacts: null }]);
    const types = await query(
      `SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'deals' ORDER BY ordinal_position`,
      [SCHEMA],
    );
    expect(types.map((r) => `${String(r.c)}:${String(r.t)}`)).toEqual(['dealId:text', 'name:text', 'amount:numeric', 'closed:boolean', 'owner:jsonb', 'contacts:jsonb']);
  });

  it.skipIf(!available)('rolls a failed batch back and reports it as a destination write failure', async () => {
    const writer = await openWriter(postgresTable, { url: PG_URL, schema: SCHEMA, table: 'typed' }, tempDir());
    await writer.write({ stream: 's', key: 'id', records: [{ id: 'a', flag: true }] });
    // Postgres text cannot hold a NUL character: the COPY fails mid-batch.
    await expect(writer.write({ stream: 's', key: 'id', records: [{ id: 'b', flag: true }, { id: 'c', flag: false, note: 'nul \u0000 inside' }] })).rejects.toMatchObject({
      code: 'FERRY_DESTINATION_WRITE_FAILED',
    });
    await writer.abort?.('test');
    expect(await query(`SELECT id FROM "${SCHEMA}".typed ORDER BY id`)).toEqual([{ id: 'a' }]);
  });

  it.skipIf(!available)('widens a column to text when an object type\'s field changes kind, and says so', async () => {
    const ctx = contextFor(postgresTable, { url: PG_URL, schema: SCHEMA, table: 'widened' }, tempDir());
    const writer = await postgresTable.open(ctx);
    await writer.write({ stream: 'rows', key: 'rowId', records: [{ rowId: 'a', amount: 1.5, won: true }] });
    await writer.write({ stream: 'rows', key: 'rowId', records: [{ rowId: 'b', amount: 'n/a', won: null }] });
    await writer.close();
    expect(await query(`SELECT "rowId", amount, won FROM "${SCHEMA}".widened ORDER BY 1`)).toEqual([
      { rowId: 'a', amount: '1.5', won: true },
      { rowId: 'b', amount: 'n/a', won: null },
    ]);
    expect(ctx.warnings).toEqual([expect.objectContaining({ column: 'amount', from: 'numeric', to: 'text' })]);
  });

  it.skipIf(!available)('relational shape: child tables join on the key; a parent written again replaces its children', async () => {
    const writer = await openWriter(postgresTable, { url: PG_URL, schema: SCHEMA, table: 'conversations', shape: 'relational' }, tempDir());
    const batch = (records: Record<string, unknown>[]) => ({ stream: 'conversations', key: 'conversationId', records });
    await writer.write(batch([conversationRecord('c1', 4), conversationRecord('c2', 2)]));
    await writer.write(batch([conversationRecord('c1', 1)]));
    await writer.close();
    const talk = await query(
      `SELECT c."conversationId" AS id, t.speaker, sum(t."endTime" - t."startTime")::int AS seconds
         FROM "${SCHEMA}".conversations c JOIN "${SCHEMA}".conversation_transcript t USING ("conversationId")
        GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(talk).toEqual([
      { id: 'c1', speaker: 'Ann', seconds: 8 },
      { id: 'c2', speaker: 'Ann', seconds: 8 },
      { id: 'c2', speaker: 'Bob', seconds: 8 },
    ]);
    expect(await query(`SELECT count(*)::int AS n FROM "${SCHEMA}".conversation_participants`)).toEqual([{ n: 4 }]);
    expect(await query(`SELECT name, email FROM "${SCHEMA}".conversation_participants WHERE "conversationId" = 'c1' AND position = 1`)).toEqual([{ name: 'Bob', email: null }]);
  });

  it('names the server but never the password when it cannot connect', async () => {
    const url = 'postgres://ferry:hunter2@127.0.0.1:1/warehouse';
    const error: unknown = await openWriter(postgresTable, { url, table: 't' }, tempDir()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FERRY_DESTINATION_UNREACHABLE' });
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    expect(text).toContain('127.0.0.1:1');
    expect(text).not.toContain('hunter2');
  });
});

/** The duckdb destination on real database files: typed columns, upserts, widening, relational shape. */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import duckdb from '../../../connectors/destinations/duckdb/index.js';
import { contextFor, conversationRecord, openWriter, tempDir } from '../../unit/export/helpers.js';

async function query(file: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('duckdb destination', () => {
  it('creates typed columns relative to the YAML folder and upserts by key', async () => {
    const dir = tempDir();
    const writer = await openWriter(duckdb, { path: 'out/w.duckdb', table: 'deals' }, dir);
    const deals = Array.from({ length: 1200 }, (_, i) => ({ dealId: `d${i}`, amount: i + 0.5, seats: i, closed: i % 2 === 0, closeDate: '2024-05-01T00:00:00.000Z', owner: { name: 'Ann' } }));
    await writer.write({ stream: 'deals', key: 'dealId', records: deals });
    await writer.write({ stream: 'deals', key: 'dealId', records: [{ dealId: 'd1', amount: 2, seats: 3, closed: true, closeDate: null, owner: null }] });
    await writer.close();
    const file = join(dir, 'out/w.duckdb');
    const types = await query(file, "SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'deals' ORDER BY ordinal_position");
    expect(types.map((r) => `${String(r.c)}:${String(r.t)}`)).toEqual([
      'dealId:VARCHAR', 'amount:DOUBLE', 'seats:BIGINT', 'closed:BOOLEAN', 'closeDate:TIMESTAMP WITH TIME ZONE', 'owner:JSON',
    ]);
    expect(await query(file, 'SELECT count(*)::INT AS n FROM deals')).toEqual([{ n: 1200 }]);
    expect(await query(file, "SELECT amount, seats::INT AS seats, closed, closeDate, owner FROM deals WHERE dealId = 'd1'")).toEqual([
      { amount: 2, seats: 3, closed: true, closeDate: null, owner: null },
    ]);
    expect(await query(file, "SELECT owner->>'name' AS owner, month(closeDate)::INT AS m FROM deals WHERE dealId = 'd2'")).toEqual([{ owner: 'Ann', m: 5 }]);
  });

  it('widens a column whose values change kind, and says so once', async () => {
    const dir = tempDir();
    const ctx = contextFor(duckdb, { path: 'w.duckdb', table: 'rows' }, dir);
    const writer = await duckdb.open(ctx);
    await writer.write({ stream: 'rows', key: 'rowId', records: [{ rowId: 'a', score: 1 }] });
    await writer.write({ stream: 'rows', key: 'rowId', records: [{ rowId: 'b', score: 'high' }] });
    await writer.close();
    expect(await query(join(dir, 'w.duckdb'), 'SELECT rowId, score FROM rows ORDER BY rowId')).toEqual([
      { rowId: 'a', score: '1' },
      { rowId: 'b', score: 'high' },
    ]);
    expect(ctx.warnings).toEqual([expect.objectContaining({ column: 'score', from: 'BIGINT', to: 'VARCHAR' })]);
  });

  it('relational shape: child tables keyed by parent and position, replaced when the parent is written again', async () => {
    const dir = tempDir();
    const writer = await openWriter(duckdb, { path: 'w.duckdb', table: 'conversations', shape: 'relational' }, dir);
    await writer.write({ stream: 'conversations', key: 'conversationId', records: [conversationRecord('c1', 4), conversationRecord('c2', 2)] });
    await writer.write({ stream: 'conversations', key: 'conversationId', records: [{ ...conversationRecord('c1', 1), transcript: [{ speaker: 'Ann', text: 'only', startTime: 0, endTime: 5 }] }] });
    await writer.close();
    const file = join(dir, 'w.duckdb');
    expect(await query(file, 'SELECT conversationId, title FROM conversations ORDER BY 1')).toEqual([
      { conversationId: 'c1', title: 'Call c1' },
      { conversationId: 'c2', title: 'Call c2' },
    ]);
    const talk = await query(
      file,
      `SELECT c.conversationId, t.speaker, sum(t.endTime - t.startTime)::INT AS seconds
         FROM conversations c JOIN conversation_transcript t USING (conversationId)
        GROUP BY ALL ORDER BY 1, 2`,
    );
    expect(talk).toEqual([
      { conversationId: 'c1', speaker: 'Ann', seconds: 5 },
      { conversationId: 'c2', speaker: 'Ann', seconds: 8 },
      { conversationId: 'c2', speaker: 'Bob', seconds: 8 },
    ]);
    expect(await query(file, "SELECT name, position::INT AS position, attended FROM conversation_participants WHERE conversationId = 'c1' ORDER BY position")).toEqual([
      { name: 'Ann', position: 0, attended: true },
      { name: 'Bob', position: 1, attended: false },
    ]);
  });

  it('relational shape: a row\'s fields become columns', async () => {
    const dir = tempDir();
    const writer = await openWriter(duckdb, { path: 'w.duckdb', table: 'rows', shape: 'relational' }, dir);
    const row = (id: string, fields: Record<string, unknown>) => ({
      rowId: id,
      name: id,
      fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { value: v, fieldType: typeof v, label: null }])),
    });
    await writer.write({ stream: 'rows', key: 'rowId', records: [row('r1', { stage: 'Won', amount: 10, name: 'dup' })] });
    await writer.close();
    expect(await query(join(dir, 'w.duckdb'), 'SELECT rowId, name, stage, amount::INT AS amount, fields_name FROM rows')).toEqual([
      { rowId: 'r1', name: 'r1', stage: 'Won', amount: 10, fields_name: 'dup' },
    ]);
  });
});

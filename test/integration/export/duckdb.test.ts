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
    return (await connection.runAndReadAll(sql)).getRowObjectsJson();
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

  it('nested types make STRUCT and LIST columns; values that stop fitting turn the column into JSON, kept whole and said once', async () => {
    const dir = tempDir();
    const ctx = contextFor(duckdb, { path: 'w.duckdb', table: 'deals' }, dir);
    const writer = await duckdb.open(ctx);
    const nestedTypes = { owner: { struct: { name: 'text', email: 'text' } }, contacts: { list: { struct: { name: 'text', seats: 'integer' } } } } as const;
    const deal = (id: string, owner: unknown, contacts: unknown) => ({ deal_id: id, owner, contacts });
    await writer.write({ stream: 'deals', key: 'deal_id', nestedTypes, records: [deal('d1', { name: 'Ann', email: null }, [{ name: 'Bo', seats: 2 }]), deal('d2', null, [])] });
    await writer.write({ stream: 'deals', key: 'deal_id', nestedTypes, records: [deal('d3', { name: 'Cy', email: 'cy@example.com', phone: '555' }, null)] });
    await writer.close();
    const file = join(dir, 'w.duckdb');
    expect(await query(file, "SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'deals' ORDER BY ordinal_position")).toEqual([
      { c: 'deal_id', t: 'VARCHAR' },
      { c: 'owner', t: 'JSON' },
      { c: 'contacts', t: 'STRUCT("name" VARCHAR, seats BIGINT)[]' },
    ]);
    expect(await query(file, "SELECT deal_id, owner->>'name' AS owner, owner->>'phone' AS phone, contacts[1].seats::INT AS seats, len(contacts)::INT AS n FROM deals ORDER BY 1")).toEqual([
      { deal_id: 'd1', owner: 'Ann', phone: null, seats: 2, n: 1 },
      { deal_id: 'd2', owner: null, phone: null, seats: null, n: 0 },
      { deal_id: 'd3', owner: 'Cy', phone: '555', seats: null, n: null },
    ]);
    expect(ctx.warnings).toEqual([expect.objectContaining({ column: 'owner', to: 'JSON' })]);
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

  // Child rows of a batch whose parents are all new are inserted without the DELETE: these guard the cases where a parent is not new.
  const deal = (id: string, emails: string[]) => ({ dealId: id, name: `Deal ${id}`, contacts: emails.map((email) => ({ email })) });
  const deals = (records: Record<string, unknown>[]) => ({ stream: 'deals', key: 'dealId', records });
  const contactsIn = (file: string) => query(file, 'SELECT dealId, list(email ORDER BY position) AS emails FROM deal_contacts GROUP BY dealId ORDER BY dealId');

  it('relational shape: a parent written again in a later batch or run, or after retain removed it, has its old child rows replaced', async () => {
    const dir = tempDir();
    const options = { path: 'w.duckdb', table: 'deals', shape: 'relational' };
    const first = await openWriter(duckdb, options, dir);
    await first.write(deals([deal('d1', ['a', 'b']), deal('d2', ['c'])]));
    await first.write(deals([deal('d3', ['d', 'e'])]));
    await first.write(deals([deal('d4', ['f']), deal('d1', ['g'])]));
    // Only the key besides the child array: the merge updates nothing, yet d4 is not new.
    await first.write(deals([{ dealId: 'd4', contacts: [{ email: 'k' }] }]));
    await first.retain!({ stream: 'deals', key: 'dealId', keys: new Set(['d1', 'd3', 'd4']) });
    await first.write(deals([deal('d2', ['h'])]));
    await first.close();
    const second = await openWriter(duckdb, options, dir);
    await second.write(deals([deal('d5', ['i'])]));
    await second.write(deals([deal('d3', ['j', 'l'])]));
    await second.close();
    expect(await contactsIn(join(dir, 'w.duckdb'))).toEqual([
      { dealId: 'd1', emails: ['g'] },
      { dealId: 'd2', emails: ['h'] },
      { dealId: 'd3', emails: ['j', 'l'] },
      { dealId: 'd4', emails: ['k'] },
      { dealId: 'd5', emails: ['i'] },
    ]);
  });

  /** d1 (two contacts) and d2 (one) written by one run in relational shape, then `edit` run on the file as a user would. */
  async function writtenThenEdited(edit: string): Promise<{ dir: string; file: string; options: Record<string, string> }> {
    const dir = tempDir();
    const file = join(dir, 'w.duckdb');
    const options = { path: 'w.duckdb', table: 'deals', shape: 'relational' };
    const first = await openWriter(duckdb, options, dir);
    await first.write(deals([deal('d1', ['a', 'b']), deal('d2', ['c'])]));
    await first.close();
    await query(file, edit);
    return { dir, file, options };
  }

  // The order has the run's check (at its second batch of new parents) find the orphans in the table, or through its batch's DELETE.
  it.each([
    { emptied: 'DROP TABLE deals', order: ['d2', 'd3', 'd1'] },
    { emptied: 'DELETE FROM deals', order: ['d3', 'd1', 'd2'] },
  ])('relational shape: child rows the user left without their parents ($emptied) are replaced when the parents come back', async ({ emptied, order }) => {
    const { dir, file, options } = await writtenThenEdited(emptied);
    const second = await openWriter(duckdb, options, dir);
    for (const id of order) await second.write(deals([deal(id, [`new ${id}`])]));
    await second.close();
    expect(await contactsIn(file)).toEqual([
      { dealId: 'd1', emails: ['new d1'] },
      { dealId: 'd2', emails: ['new d2'] },
      { dealId: 'd3', emails: ['new d3'] },
    ]);
  });

  it('relational shape: child rows a failed batch had replaced are back, and replaced by the next batch of their parent', async () => {
    const { dir, file, options } = await writtenThenEdited("DELETE FROM deals WHERE dealId = 'd2'");
    // A table of the user's that a later child table of the batch cannot be written to: the batch fails after deal_contacts.
    await query(file, 'CREATE TABLE deal_notes (dealId VARCHAR, position BIGINT, note INTEGER)');
    const second = await openWriter(duckdb, options, dir);
    await second.write(deals([deal('d3', ['d'])]));
    await expect(second.write(deals([{ ...deal('d2', ['x']), notes: [{ note: 'not a number' }] }]))).rejects.toThrow(/cannot write deals/);
    await second.write(deals([deal('d2', ['y'])]));
    await second.close();
    expect(await contactsIn(file)).toEqual([
      { dealId: 'd1', emails: ['a', 'b'] },
      { dealId: 'd2', emails: ['y'] },
      { dealId: 'd3', emails: ['d'] },
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

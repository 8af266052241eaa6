import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import sqliteTable from '../../../connectors/destinations/sqlite-table/index.js';
import { conversationRecord, openWriter, tempDir } from './helpers.js';

const batch = (records: Record<string, unknown>[]) => ({ stream: 'conversations', records, key: 'conversationId' });

function rows(path: string, sql: string): Record<string, unknown>[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe('sqlite-table destination', () => {
  it('creates the table from the data and upserts by the key without duplicating', async () => {
    const dir = tempDir();
    const path = join(dir, 'w.db');
    const first = await openWriter(sqliteTable, { path: 'w.db', table: 'conversations' }, dir);
    await first.write(batch([
      { conversationId: 'c1', title: 'Kickoff', duration: 30, score: 0.5, internal: true, participants: [{ name: 'A' }], crm: null },
      { conversationId: 'c2', title: 'Demo', duration: 45, score: 1.5, internal: false, participants: [], crm: { id: 'x' } },
    ]));
    await first.close();
    const second = await openWriter(sqliteTable, { path: 'w.db', table: 'conversations' }, dir);
    await second.write(batch([
      { conversationId: 'c2', title: 'Demo (edited)', duration: 50, score: 2, internal: false, participants: [], crm: null, summary: { topic: 'pricing' } },
      { conversationId: 'c2', title: 'Demo (last)', duration: 51, score: 2, internal: false, participants: [], crm: null, summary: { topic: 'pricing' } },
    ]));
    await second.close();

    const stored = rows(path, 'SELECT * FROM conversations ORDER BY conversationId');
    expect(stored).toEqual([
      { conversationId: 'c1', title: 'Kickoff', duration: 30, score: 0.5, internal: 1, participants: '[{"name":"A"}]', crm: null, summary: null },
      { conversationId: 'c2', title: 'Demo (last)', duration: 51, score: 2, internal: 0, participants: '[]', crm: null, summary: '{"topic":"pricing"}' },
    ]);
    const types = rows(path, 'PRAGMA table_info(conversations)').map((c) => [c.name, c.type]);
    expect(types).toEqual([
      ['conversationId', 'TEXT'], ['title', 'TEXT'], ['duration', 'INTEGER'], ['score', 'REAL'], ['internal', 'INTEGER'],
      ['participants', 'TEXT'], ['crm', 'TEXT'], ['summary', 'TEXT'],
    ]);
  });

  it('upserts into a table that existed without a unique key', async () => {
    const dir = tempDir();
    const path = join(dir, 'w.db');
    const db = new Database(path);
    db.exec('CREATE TABLE deals (dealId TEXT, name TEXT, note TEXT)');
    db.prepare("INSERT INTO deals VALUES ('d1', 'old', 'keep me')").run();
    db.close();
    const writer = await openWriter(sqliteTable, { path: 'w.db', table: 'deals' }, dir);
    await writer.write({ stream: 'deals', key: 'dealId', records: [{ dealId: 'd1', name: 'new' }, { dealId: 'd2', name: 'two' }] });
    await writer.close();
    expect(rows(path, 'SELECT * FROM deals ORDER BY dealId')).toEqual([
      { dealId: 'd1', name: 'new', note: 'keep me' },
      { dealId: 'd2', name: 'two', note: null },
    ]);
  });

  it('keys on destination.key over the stream key, and refuses records without it', async () => {
    const dir = tempDir();
    const writer = await openWriter(sqliteTable, { path: 'w.db', table: 'rows', key: 'remoteId' }, dir);
    await writer.write({ stream: 'rows', key: 'rowId', records: [{ rowId: 'r1', remoteId: 'x' }, { rowId: 'r2', remoteId: 'x' }] });
    expect(rows(join(dir, 'w.db'), 'SELECT rowId FROM rows')).toEqual([{ rowId: 'r2' }]);
    await expect(writer.write({ stream: 'rows', records: [{ rowId: 'r3' }] })).rejects.toMatchObject({ code: 'FERRY_DESTINATION_WRITE_FAILED' });
    await writer.abort?.('test');
  });

  it('relational shape: transcript and participants as child tables that join on the key and are replaced per parent', async () => {
    const dir = tempDir();
    const path = join(dir, 'w.db');
    const writer = await openWriter(sqliteTable, { path: 'w.db', table: 'conversations', shape: 'relational' }, dir);
    await writer.write(batch([conversationRecord('c1', 4), conversationRecord('c2', 2)]));
    await writer.write(batch([{ ...conversationRecord('c1', 0), transcript: null }]));
    await writer.close();
    expect(rows(path, 'SELECT conversationId, title FROM conversations ORDER BY 1')).toEqual([
      { conversationId: 'c1', title: 'Call c1' },
      { conversationId: 'c2', title: 'Call c2' },
    ]);
    expect(
      rows(path, `SELECT c.conversationId, t.speaker, sum(t.endTime - t.startTime) AS seconds
                    FROM conversations c JOIN conversation_transcript t ON t.conversationId = c.conversationId
                   GROUP BY 1, 2 ORDER BY 1, 2`),
    ).toEqual([
      { conversationId: 'c2', speaker: 'Ann', seconds: 8 },
      { conversationId: 'c2', speaker: 'Bob', seconds: 8 },
    ]);
    expect(rows(path, 'SELECT count(*) AS n FROM conversation_participants')).toEqual([{ n: 4 }]);
  });
});

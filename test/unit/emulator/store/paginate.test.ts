/**
 * Keyset pagination of the emulator's lists: every row once, in order, with
 * ties on the sort key split across pages; and a page after a cursor seeks
 * the list's index to it instead of scanning from the newest row down (a
 * first export of 100,000 rows read one chain's deep pages in 20 s of the
 * emulator's CPU when it scanned).
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { paginate } from '../../../../src/emulator/store/paginate.js';

interface Row {
  id: string;
  sort_ms: number;
  kind: string;
}

function listDatabase(statements: string[]) {
  const db = new Database(':memory:', { verbose: (sql) => statements.push(String(sql)) });
  db.exec('CREATE TABLE things (id TEXT PRIMARY KEY, kind TEXT NOT NULL, sort_ms INTEGER NOT NULL)');
  db.exec('CREATE INDEX things_list ON things(kind, sort_ms DESC, id DESC)');
  const insert = db.prepare('INSERT INTO things (id, kind, sort_ms) VALUES (?, ?, ?)');
  // 60 rows of kind a, five to a millisecond; 10 of kind b in between.
  for (let i = 0; i < 60; i++) insert.run(`a-${String(i).padStart(2, '0')}`, 'a', 1000 + Math.floor(i / 5));
  for (let i = 0; i < 10; i++) insert.run(`b-${i}`, 'b', 1003);
  return db;
}

function readAll(db: Database.Database, limit: number, window: { sortFrom?: number; sortTo?: number } = {}): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = paginate<Row, Row>(db, {
      list: 'things', table: 'things', idColumn: 'id', limit, cursor, sortTo: window.sortTo,
      where: ['kind = ?', ...(window.sortFrom === undefined ? [] : ['sort_ms >= ?'])], params: ['a', ...(window.sortFrom === undefined ? [] : [window.sortFrom])],
      decode: (row) => row, keyOf: (row) => ({ sortMs: row.sort_ms, id: row.id }),
    });
    ids.push(...page.items.map((row) => row.id));
    if (!page.hasMore) return ids;
    cursor = page.nextCursor!;
  }
  throw new Error('the list never ended');
}

describe('paginate', () => {
  it('returns every row once, newest first, ties split across pages', () => {
    const db = listDatabase([]);
    const expected = Array.from({ length: 60 }, (_, i) => `a-${String(i).padStart(2, '0')}`).sort((x, y) => {
      const [sx, sy] = [Math.floor(Number(x.slice(2)) / 5), Math.floor(Number(y.slice(2)) / 5)];
      return sy - sx || (x < y ? 1 : -1);
    });
    for (const limit of [1, 3, 5, 7, 60]) expect(readAll(db, limit), `limit ${limit}`).toEqual(expected);
  });

  it('keeps a window exactly, its upper end inclusive', () => {
    const db = listDatabase([]);
    const all = readAll(db, 60);
    const inWindow = all.filter((id) => { const at = 1000 + Math.floor(Number(id.slice(2)) / 5); return at >= 1003 && at <= 1007; });
    expect(inWindow).toHaveLength(25);
    for (const limit of [1, 4, 5, 25, 30]) expect(readAll(db, limit, { sortFrom: 1003, sortTo: 1007 }), `limit ${limit}`).toEqual(inWindow);
  });

  it('seeks the index to the cursor, inside a window too', () => {
    const statements: string[] = [];
    const db = listDatabase(statements);
    const lastPage = (read: () => void) => {
      statements.length = 0;
      read();
      return statements.filter((sql) => sql.startsWith('SELECT')).at(-1)!;
    };
    const pages = [lastPage(() => readAll(db, 7)), lastPage(() => readAll(db, 7, { sortFrom: 1002, sortTo: 1009 }))];
    const plans = pages.map((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((step) => step.detail));
    expect(plans).toEqual([
      [expect.stringMatching(/USING (COVERING )?INDEX things_list \(kind=\? AND \(sort_ms,id\)<\(\?,\?\)\)/)],
      [expect.stringMatching(/USING (COVERING )?INDEX things_list \(kind=\? AND sort_ms>\? AND \(sort_ms,id\)<\(\?,\?\)\)/)],
    ]);
  });
});

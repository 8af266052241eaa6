/**
 * The full-text index (SQLite FTS5) behind the ask assistant. It holds
 * passages of public, live records only, so private and deleted records can
 * never leak into an answer.
 */
import { prepared, type Db } from './database.js';
import { isVisible } from './records.js';
import { passagesOf } from '../search/passages.js';
import type { RecordKind, StoredRecord } from './types.js';

export interface SearchHit {
  recordId: string;
  kind: RecordKind;
  title: string;
  body: string;
  /** bm25 rank: lower is better. */
  rank: number;
}

/** How many queued records one background catch-up indexes, so it never blocks requests for long. */
export const CATCH_UP_BATCH = 500;

/**
 * Writes queue records with `markStale` (cheap, inside their own
 * transaction); `catchUp` indexes the queue in one transaction, which FTS5
 * handles far better than one segment per write. Every read of the index
 * catches up first, so a search always sees every write before it.
 */
export class SearchIndex {
  constructor(
    private readonly db: Db,
    /** The record with this id as stored now (any kind, deleted too), or undefined. */
    private readonly recordById: (id: string) => StoredRecord | undefined,
  ) {}

  /** Queue the record for (re)indexing; call inside the transaction that changed it. */
  markStale(recordId: string): void {
    prepared(this.db, 'INSERT OR IGNORE INTO search_pending (record_id) VALUES (?)').run(recordId);
  }

  /** Index up to `limit` queued records (all by default) in one transaction; returns how many were left queued. */
  catchUp(limit = Number.MAX_SAFE_INTEGER): number {
    return this.db.transaction(() => {
      const ids = prepared(this.db, 'SELECT record_id FROM search_pending LIMIT ?').pluck().all(limit) as string[];
      const done = prepared(this.db, 'DELETE FROM search_pending WHERE record_id = ?');
      for (const id of ids) {
        const record = this.recordById(id);
        if (record) this.reindex(record);
        else this.remove(id);
        done.run(id);
      }
      return ids.length < limit ? 0 : (prepared(this.db, 'SELECT count(*) FROM search_pending').pluck().get() as number);
    })();
  }

  /** Replace the record's passages with its current ones (none when private or deleted). */
  reindex(record: StoredRecord): void {
    this.remove(record.id);
    if (!isVisible(record)) return;
    const insert = prepared(this.db, 'INSERT INTO search_passages (org_id, record_id, kind, title, body) VALUES (?, ?, ?, ?, ?)');
    const link = prepared(this.db, 'INSERT INTO search_rows (passage_rowid, org_id, record_id) VALUES (?, ?, ?)');
    for (const passage of passagesOf(record)) {
      const { lastInsertRowid } = insert.run(record.orgId, record.id, record.kind, passage.title, passage.body);
      link.run(lastInsertRowid, record.orgId, record.id);
    }
  }

  remove(recordId: string): void {
    const rows = prepared(this.db, 'SELECT passage_rowid FROM search_rows WHERE record_id = ?').all(recordId) as { passage_rowid: number }[];
    if (rows.length === 0) return;
    const drop = prepared(this.db, 'DELETE FROM search_passages WHERE rowid = ?');
    for (const row of rows) drop.run(row.passage_rowid);
    prepared(this.db, 'DELETE FROM search_rows WHERE record_id = ?').run(recordId);
  }

  /** Number of indexed passages of the organization. */
  count(orgId: string): number {
    this.catchUp();
    return (prepared(this.db, 'SELECT count(*) AS n FROM search_rows WHERE org_id = ?').get(orgId) as { n: number }).n;
  }

  /** Best passages for an FTS5 MATCH expression; titles weigh twice the body. */
  search(orgId: string, match: string, limit: number): SearchHit[] {
    this.catchUp();
    const rows = prepared(this.db, 
        `SELECT record_id, kind, title, body, bm25(search_passages, 0, 0, 0, 2.0, 1.0) AS rank
         FROM search_passages WHERE search_passages MATCH ? AND org_id = ? ORDER BY rank LIMIT ?`,
      )
      .all(match, orgId, limit) as { record_id: string; kind: RecordKind; title: string; body: string; rank: number }[];
    return rows.map((r) => ({ recordId: r.record_id, kind: r.kind, title: r.title, body: r.body, rank: r.rank }));
  }
}

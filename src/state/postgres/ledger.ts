/**
 * The ledger table on PostgreSQL. Lookups take whole id lists in one
 * query (one primary-key probe per id); writes go in as one multi-row `INSERT … SELECT unnest(…)
 * ON CONFLICT` per batch, so committing 500 acknowledgements costs one round
 * trip, not 500.
 */
import { ledgerEntryOf, type LedgerRow } from '../rows.js';
import type { AcknowledgedWrite, FailureWrite, FingerprintHit, LedgerEntry, SourceLook } from '../types.js';
import type { Queryable } from './database.js';

/** Ids per lookup query; bounded so one statement stays a reasonable size. */
const LOOKUP_CHUNK = 5000;
export const LIVE_PAGE = 1000;

export class PgLedger {
  constructor(private readonly s: string) {}

  /**
   * The ledger row of one id of a batch, as a subquery the planner must run
   * once per id, through the primary key. As a plain join, a ledger never
   * analysed (autovacuum off, or not yet run after a large first run) was
   * planned as a hash join over every row of the sync: each batch of 256
   * read the whole ledger, and a no-op re-run of 50,000 records took 5 s
   * where SQLite takes 0.4. LIMIT 1 (the key is unique, so it drops
   * nothing) keeps the subquery from being merged into a join.
   */
  private lookup(remoteId: string): string {
    return `SELECT remote_id, fingerprint, status, record_id, source_fingerprint FROM ${this.s}.ledger
            WHERE sync = $1 AND remote_id = ${remoteId} LIMIT 1`;
  }

  async fingerprints(db: Queryable, sync: string, remoteIds: readonly string[]): Promise<Map<string, FingerprintHit>> {
    const found = new Map<string, FingerprintHit>();
    for (let start = 0; start < remoteIds.length; start += LOOKUP_CHUNK) {
      const chunk = remoteIds.slice(start, start + LOOKUP_CHUNK);
      const { rows } = await db.query<Pick<LedgerRow, 'remote_id' | 'fingerprint' | 'status' | 'record_id' | 'source_fingerprint'>>(
        `SELECT l.remote_id, l.fingerprint, l.status, l.record_id, l.source_fingerprint
         FROM unnest($2::text[]) AS wanted(remote_id)
         CROSS JOIN LATERAL (${this.lookup('wanted.remote_id')}) l`,
        [sync, chunk],
      );
      for (const row of rows) {
        const hit: FingerprintHit = { fingerprint: row.fingerprint, status: row.status, recordId: row.record_id };
        if (row.source_fingerprint !== null) hit.sourceFingerprint = row.source_fingerprint;
        found.set(row.remote_id, hit);
      }
    }
    return found;
  }

  /** Rows for the pairs that are not unchanged only (the others cost the index look-up and nothing more). */
  async unchangedAtSource(db: Queryable, sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): Promise<SourceLook> {
    const unchanged = new Uint8Array(remoteIds.length).fill(1);
    const others = new Map<string, FingerprintHit>();
    for (let start = 0; start < remoteIds.length; start += LOOKUP_CHUNK) {
      const { rows } = await db.query<{ pair: number } & Pick<LedgerRow, 'fingerprint' | 'status' | 'record_id' | 'source_fingerprint'> & { remote_id: string | null }>(
        `SELECT pair.ord::int - 1 AS pair, l.remote_id, l.fingerprint, l.status, l.record_id, l.source_fingerprint
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS pair(remote_id, source_print, ord)
         LEFT JOIN LATERAL (${this.lookup('pair.remote_id')}) l ON true
         WHERE l.status IS DISTINCT FROM 'pushed' OR l.source_fingerprint IS DISTINCT FROM pair.source_print`,
        [sync, remoteIds.slice(start, start + LOOKUP_CHUNK), sourcePrints.slice(start, start + LOOKUP_CHUNK)],
      );
      for (const row of rows) {
        unchanged[start + row.pair] = 0;
        if (row.remote_id === null) continue;
        const hit: FingerprintHit = { fingerprint: row.fingerprint, status: row.status, recordId: row.record_id };
        if (row.source_fingerprint !== null) hit.sourceFingerprint = row.source_fingerprint;
        others.set(row.remote_id, hit);
      }
    }
    return { unchanged, others };
  }

  async entry(db: Queryable, sync: string, remoteId: string): Promise<LedgerEntry | undefined> {
    const { rows } = await db.query<LedgerRow>(`SELECT * FROM ${this.s}.ledger WHERE sync = $1 AND remote_id = $2`, [sync, remoteId]);
    return rows[0] === undefined ? undefined : ledgerEntryOf(rows[0]);
  }

  /** One page of live ids after `after` (keyset pagination in remote-id order, byte order as in SQLite). */
  async livePage(db: Queryable, sync: string, after: string | undefined): Promise<string[]> {
    const { rows } = await db.query<{ remote_id: string }>(
      `SELECT remote_id FROM ${this.s}.ledger WHERE sync = $1 AND status = 'pushed' AND ($2::text IS NULL OR remote_id > $2::text)
       ORDER BY remote_id LIMIT ${LIVE_PAGE}`,
      [sync, after ?? null],
    );
    return rows.map((r) => r.remote_id);
  }

  async countLive(db: Queryable, sync: string): Promise<number> {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.ledger WHERE sync = $1 AND status = 'pushed'`, [sync]);
    return Number(rows[0]?.n ?? 0);
  }

  async hasLive(db: Queryable, sync: string): Promise<boolean> {
    const { rows } = await db.query(`SELECT 1 FROM ${this.s}.ledger WHERE sync = $1 AND status = 'pushed' LIMIT 1`, [sync]);
    return rows.length > 0;
  }

  /** Many acknowledgements, distinct records, one statement; their open dead-letter entries are resolved in a second. */
  async writeAcknowledged(db: Queryable, writes: readonly { write: AcknowledgedWrite; at: string }[]): Promise<void> {
    if (writes.length === 0) return;
    const syncs = writes.map((w) => w.write.sync);
    const ids = writes.map((w) => w.write.remoteId);
    await db.query(
      `INSERT INTO ${this.s}.ledger (sync, remote_id, fingerprint, record_id, status, attempts, last_error, origin, updated_at, source_fingerprint)
       SELECT s, r, f, rec, 'pushed', 0, NULL, o, at, sf
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(s, r, f, rec, o, at, sf)
       ON CONFLICT (sync, remote_id) DO UPDATE SET
         fingerprint = excluded.fingerprint, record_id = excluded.record_id, status = 'pushed', attempts = 0,
         last_error = NULL, origin = coalesce(excluded.origin, ledger.origin), updated_at = excluded.updated_at,
         source_fingerprint = excluded.source_fingerprint`,
      [
        syncs,
        ids,
        writes.map((w) => w.write.fingerprint),
        writes.map((w) => w.write.recordId),
        writes.map((w) => w.write.origin ?? null),
        writes.map((w) => w.at),
        writes.map((w) => w.write.sourceFingerprint ?? null),
      ],
    );
    // The open entries' ids first, one key probe per record (see lookup): as a join, a failures table never
    // analysed was sorted whole for each commit (docs/performance.md, "State store").
    await db.query(
      `DELETE FROM ${this.s}.failures WHERE id = ANY (ARRAY(
         SELECT open.id FROM unnest($1::text[], $2::text[]) AS t(s, r)
         CROSS JOIN LATERAL (SELECT id FROM ${this.s}.failures WHERE sync = t.s AND remote_id = t.r LIMIT 1) open))`,
      [syncs, ids],
    );
  }

  async writeDeleted(db: Queryable, writes: readonly { sync: string; remoteId: string; at: string }[]): Promise<void> {
    if (writes.length === 0) return;
    await db.query(
      `INSERT INTO ${this.s}.ledger (sync, remote_id, fingerprint, record_id, status, attempts, last_error, origin, updated_at)
       SELECT s, r, '', NULL, 'deleted', 0, NULL, NULL, at FROM unnest($1::text[], $2::text[], $3::text[]) AS t(s, r, at)
       ON CONFLICT (sync, remote_id) DO UPDATE SET status = 'deleted', updated_at = excluded.updated_at`,
      [writes.map((w) => w.sync), writes.map((w) => w.remoteId), writes.map((w) => w.at)],
    );
  }

  async writeFailure(db: Queryable, f: FailureWrite & { remoteId: string }, at: string): Promise<void> {
    await db.query(
      `INSERT INTO ${this.s}.ledger (sync, remote_id, fingerprint, record_id, status, attempts, last_error, origin, updated_at)
       VALUES ($1, $2, coalesce($3, ''), NULL, 'failed', 1, $4, $5, $6)
       ON CONFLICT (sync, remote_id) DO UPDATE SET
         fingerprint = coalesce($3, ledger.fingerprint), status = 'failed', attempts = ledger.attempts + 1,
         last_error = excluded.last_error, origin = coalesce(excluded.origin, ledger.origin), updated_at = excluded.updated_at`,
      [f.sync, f.remoteId, f.fingerprint ?? null, f.reason, f.origin, at],
    );
  }

  async deleteSync(db: Queryable, sync: string): Promise<void> {
    await db.query(`DELETE FROM ${this.s}.ledger WHERE sync = $1`, [sync]);
  }
}


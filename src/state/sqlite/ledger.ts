/**
 * The ledger table: per record, the fingerprint the service last acknowledged.
 * Reads are batched; writes arrive from the write buffer inside the store's
 * transactions.
 */
import { ledgerEntryOf, type LedgerRow } from '../rows.js';
import type { Statement } from 'better-sqlite3';
import type { AcknowledgedWrite, FailureWrite, FingerprintHit, LedgerEntry, SourceLook } from '../types.js';
import type { Db } from './database.js';
import { SourceLooks, sourceLookOf } from './source-looks.js';

/** Ids per lookup statement (one JSON array parameter each). */
const MAX_IN = 500;

export const LIVE_PAGE = 1000;
/**
 * Acknowledgements per INSERT: one statement run for many rows instead of
 * one each, which saves a statement's overhead per row (figures:
 * docs/performance.md). Rows of one statement are applied in order, a repeated id's
 * later row updating the earlier one, as separate statements would.
 */
const ACK_CHUNK = 50;
const ACK_COLUMNS = 7;

/** An upsert of `rows` acknowledged records: (sync, remote_id, fingerprint, record_id, origin, updated_at, source_fingerprint) each. */
function acknowledgeSql(rows: number): string {
  return `
      INSERT INTO ledger (sync, remote_id, fingerprint, record_id, status, attempts, last_error, origin, updated_at, source_fingerprint)
      VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?, 'pushed', 0, NULL, ?, ?, ?)").join(', ')}
      ON CONFLICT (sync, remote_id) DO UPDATE SET
        fingerprint = excluded.fingerprint, record_id = excluded.record_id, status = 'pushed', attempts = 0,
        last_error = NULL, origin = coalesce(excluded.origin, ledger.origin), updated_at = excluded.updated_at,
        source_fingerprint = excluded.source_fingerprint`;
}

export class LedgerTable {
  /** Rows as arrays (no per-row object with named keys): remote_id, fingerprint, status, record_id, source_fingerprint. */
  private readonly lookupStmt: Statement<[string, string], [string, string, LedgerRow['status'], string | null, string | null]>;
  private readonly sourceLooks: SourceLooks;
  private readonly entryStmt: Statement<[string, string], LedgerRow>;
  private readonly firstLivePage: Statement<[string, number], string>;
  private readonly nextLivePage: Statement<[string, string, number], string>;
  private readonly countLiveStmt: Statement<[string], number>;
  private readonly anyLiveStmt: Statement<[string], number>;
  private readonly ackStmt: Statement;
  private readonly ackChunkStmt: Statement;
  private readonly failStmt: Statement;
  private readonly deleteStmt: Statement;

  constructor(private readonly db: Db) {
    this.sourceLooks = new SourceLooks(db);
    this.lookupStmt = db
      .prepare<[string, string], [string, string, LedgerRow['status'], string | null, string | null]>(
        'SELECT remote_id, fingerprint, status, record_id, source_fingerprint FROM ledger WHERE sync = ? AND remote_id IN (SELECT value FROM json_each(?))',
      )
      .raw();
    this.entryStmt = db.prepare('SELECT * FROM ledger WHERE sync = ? AND remote_id = ?');
    this.firstLivePage = db
      .prepare<[string, number], string>("SELECT remote_id FROM ledger WHERE sync = ? AND status = 'pushed' ORDER BY remote_id LIMIT ?")
      .pluck();
    this.nextLivePage = db
      .prepare<[string, string, number], string>(
        "SELECT remote_id FROM ledger WHERE sync = ? AND status = 'pushed' AND remote_id > ? ORDER BY remote_id LIMIT ?",
      )
      .pluck();
    this.countLiveStmt = db.prepare<[string], number>("SELECT count(*) FROM ledger WHERE sync = ? AND status = 'pushed'").pluck();
    this.anyLiveStmt = db.prepare<[string], number>("SELECT 1 FROM ledger WHERE sync = ? AND status = 'pushed' LIMIT 1").pluck();
    this.ackStmt = db.prepare(acknowledgeSql(1));
    this.ackChunkStmt = db.prepare(acknowledgeSql(ACK_CHUNK));
    this.failStmt = db.prepare(`
      INSERT INTO ledger (sync, remote_id, fingerprint, record_id, status, attempts, last_error, origin, updated_at)
      VALUES (@sync, @remoteId, coalesce(@fingerprint, ''), NULL, 'failed', 1, @reason, @origin, @at)
      ON CONFLICT (sync, remote_id) DO UPDATE SET
        fingerprint = coalesce(@fingerprint, ledger.fingerprint), status = 'failed', attempts = ledger.attempts + 1,
        last_error = excluded.last_error, origin = coalesce(excluded.origin, ledger.origin), updated_at = excluded.updated_at`);
    this.deleteStmt = db.prepare(`
      INSERT INTO ledger (sync, remote_id, fingerprint, record_id, status, attempts, last_error, origin, updated_at)
      VALUES (@sync, @remoteId, '', NULL, 'deleted', 0, NULL, NULL, @at)
      ON CONFLICT (sync, remote_id) DO UPDATE SET status = 'deleted', updated_at = excluded.updated_at`);
  }

  fingerprints(sync: string, remoteIds: readonly string[]): Map<string, FingerprintHit> {
    const found = new Map<string, FingerprintHit>();
    for (let start = 0; start < remoteIds.length; start += MAX_IN) {
      const chunk = start === 0 && remoteIds.length <= MAX_IN ? remoteIds : remoteIds.slice(start, start + MAX_IN);
      const rows = this.lookupStmt.all(sync, JSON.stringify(chunk));
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const hit: FingerprintHit = { fingerprint: row[1], status: row[2], recordId: row[3] };
        if (row[4] !== null) hit.sourceFingerprint = row[4];
        found.set(row[0], hit);
      }
    }
    return found;
  }

  unchangedAtSource(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): SourceLook {
    return sourceLookOf(this.sourceLooks.look(sync, remoteIds, sourcePrints));
  }

  entry(sync: string, remoteId: string): LedgerEntry | undefined {
    const row = this.entryStmt.get(sync, remoteId);
    return row === undefined ? undefined : ledgerEntryOf(row);
  }

  /** One page of live ids after `after` (keyset pagination, in remote-id order). */
  livePage(sync: string, after: string | undefined): string[] {
    return after === undefined ? this.firstLivePage.all(sync, LIVE_PAGE) : this.nextLivePage.all(sync, after, LIVE_PAGE);
  }

  countLive(sync: string): number {
    return this.countLiveStmt.get(sync) ?? 0;
  }

  hasLive(sync: string): boolean {
    return this.anyLiveStmt.get(sync) !== undefined;
  }

  /** Acknowledgements in the order given: {@link ACK_CHUNK} to a statement, the rest one by one. */
  writeAcknowledged(writes: readonly { write: AcknowledgedWrite; at: string }[]): void {
    let i = 0;
    if (writes.length >= ACK_CHUNK) {
      // Positional: no parameter object to build per record and bind by name.
      const params = new Array<string | null>(ACK_CHUNK * ACK_COLUMNS);
      for (; i + ACK_CHUNK <= writes.length; i += ACK_CHUNK) {
        for (let k = 0; k < ACK_CHUNK; k++) putAcknowledged(params, k * ACK_COLUMNS, writes[i + k]!);
        this.ackChunkStmt.run(params);
      }
    }
    const one = new Array<string | null>(ACK_COLUMNS);
    for (; i < writes.length; i++) {
      putAcknowledged(one, 0, writes[i]!);
      this.ackStmt.run(one);
    }
  }

  writeFailure(f: FailureWrite & { remoteId: string }, at: string): void {
    this.failStmt.run({ sync: f.sync, remoteId: f.remoteId, fingerprint: f.fingerprint ?? null, reason: f.reason, origin: f.origin, at });
  }

  writeDeleted(sync: string, remoteId: string, at: string): void {
    this.deleteStmt.run({ sync, remoteId, at });
  }

  deleteSync(sync: string): void {
    this.db.prepare('DELETE FROM ledger WHERE sync = ?').run(sync);
  }
}

function putAcknowledged(params: (string | null)[], at: number, { write: w, at: updatedAt }: { write: AcknowledgedWrite; at: string }): void {
  params[at] = w.sync;
  params[at + 1] = w.remoteId;
  params[at + 2] = w.fingerprint;
  params[at + 3] = w.recordId;
  params[at + 4] = w.origin ?? null;
  params[at + 5] = updatedAt;
  params[at + 6] = w.sourceFingerprint ?? null;
}

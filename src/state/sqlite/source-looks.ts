/**
 * The no-op re-run's question to the ledger, a batch at a time: which of
 * these (remote id, source fingerprint) pairs does it hold as pushed, with
 * exactly that source fingerprint? Asked on the store's own connection, or
 * on the ledger reader's thread (ledger-reader.ts), which is why the answer
 * comes as plain arrays: they cross a thread as they are.
 */
import type { Statement } from 'better-sqlite3';
import type { LedgerRow } from '../rows.js';
import type { FingerprintHit, SourceLook } from '../types.js';
import type { Db } from './database.js';

/** Pairs per statement (two parameters each, under SQLite's limit of 32,766). */
const PAIRS_PER_STATEMENT = 500;

/** A pair that is not unchanged: its index, then the ledger's columns (null when the ledger lacks the id). */
type SourceLookRow = [number, string | null, string, LedgerRow['status'], string | null, string | null];

/** A ledger entry as it crosses a thread: remote id, fingerprint, status, record id, source fingerprint. */
export type EntryColumns = [string, string, LedgerRow['status'], string | null, string | null];

/** {@link SourceLook} in plain arrays. */
export interface SourceLookColumns {
  /** Per pair, by index: 1 when unchanged. */
  unchanged: Uint8Array;
  /** The ledger's entries for the ids of the other pairs that it holds. */
  others: EntryColumns[];
}

export class SourceLooks {
  /** Statements by number of pairs (a run's batches come in one or two sizes). */
  private readonly statements = new Map<number, Statement<string[], SourceLookRow>>();

  constructor(private readonly db: Db) {}

  look(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): SourceLookColumns {
    const unchanged = new Uint8Array(remoteIds.length).fill(1);
    const others: EntryColumns[] = [];
    for (let start = 0; start < remoteIds.length; start += PAIRS_PER_STATEMENT) {
      const end = Math.min(remoteIds.length, start + PAIRS_PER_STATEMENT);
      const params = new Array<string>(2 * (end - start) + 1);
      for (let i = start, p = 0; i < end; i++) {
        params[p++] = remoteIds[i]!;
        params[p++] = sourcePrints[i]!;
      }
      params[params.length - 1] = sync;
      const rows = this.statement(end - start).all(...params);
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!;
        unchanged[start + row[0]] = 0;
        if (row[1] !== null) others.push([row[1], row[2], row[3], row[4], row[5]]);
      }
    }
    return { unchanged, others };
  }

  /**
   * The pairs are bound as parameters of a VALUES list (cheaper than one
   * JSON array to parse); an unchanged pair yields no row, so the common
   * case of a no-op re-run reads the index and hands nothing to JavaScript.
   */
  private statement(pairs: number): Statement<string[], SourceLookRow> {
    let statement = this.statements.get(pairs);
    if (statement === undefined) {
      const values = Array.from({ length: pairs }, (_, i) => `(${i}, ?, ?)`).join(', ');
      statement = this.db
        .prepare<string[], SourceLookRow>(
          `WITH pair (k, remote_id, source_print) AS (VALUES ${values})
           SELECT pair.k, ledger.remote_id, ledger.fingerprint, ledger.status, ledger.record_id, ledger.source_fingerprint
           FROM pair LEFT JOIN ledger ON ledger.sync = ? AND ledger.remote_id = pair.remote_id
           WHERE ledger.status IS NOT 'pushed' OR ledger.source_fingerprint IS NOT pair.source_print`,
        )
        .raw();
      // A few sizes at most in a run (full batches, the last one): keep the cache from growing with odd sizes.
      if (this.statements.size >= 8) this.statements.clear();
      this.statements.set(pairs, statement);
    }
    return statement;
  }
}

/** The columns as the {@link SourceLook} a store returns. */
export function sourceLookOf({ unchanged, others }: SourceLookColumns): SourceLook {
  const entries = new Map<string, FingerprintHit>();
  for (const [remoteId, fingerprint, status, recordId, sourceFingerprint] of others) {
    const hit: FingerprintHit = { fingerprint, status, recordId };
    if (sourceFingerprint !== null) hit.sourceFingerprint = sourceFingerprint;
    entries.set(remoteId, hit);
  }
  return { unchanged, others: entries };
}

/**
 * A read cache of the ledger for the syncs whose lock this store holds. The
 * runner looks each record's fingerprint up one at a time; on PostgreSQL
 * every lookup would be a network round trip, which would make an unchanged
 * re-run several times slower than on SQLite. While a store holds a sync's
 * lock nobody else writes that sync's ledger, so it can answer from memory:
 *
 * - a sync with no ledger rows when the lock was taken answers "unknown
 *   record" for every id it has not written itself (a first run costs no lookup);
 * - a lookup that misses the cache also fetches the rows written right after
 *   the asked one (`seq` order), because a re-run reads its source in about the
 *   order the previous run acknowledged it.
 *
 * Entries of records this store writes are dropped on commit (the next lookup
 * reads the database), and the whole cache of a sync is dropped when its lock
 * is released or lost. Bounded: a sync's entries are cleared past MAX_ENTRIES.
 */
import type { FingerprintHit } from '../types.js';

const MAX_ENTRIES = 50_000;

interface SyncCache {
  /** The sync had no ledger rows when its lock was taken. */
  empty: boolean;
  /** Known rows (null: known to be absent). */
  entries: Map<string, FingerprintHit | null>;
  /** Records written since the lock was taken: never answered from `empty`. */
  written: Set<string>;
}

export class LedgerCache {
  private readonly syncs = new Map<string, SyncCache>();

  hold(sync: string, empty: boolean): void {
    this.syncs.set(sync, { empty, entries: new Map(), written: new Set() });
  }

  drop(sync: string): void {
    this.syncs.delete(sync);
  }

  holds(sync: string): boolean {
    return this.syncs.has(sync);
  }

  /** Answers what it can; returns the ids it cannot answer. */
  lookup(sync: string, remoteIds: readonly string[], found: Map<string, FingerprintHit>): string[] {
    const cache = this.syncs.get(sync);
    if (cache === undefined) return [...remoteIds];
    const unknown: string[] = [];
    for (const id of remoteIds) {
      const entry = cache.entries.get(id);
      if (entry !== undefined) {
        if (entry !== null) found.set(id, entry);
      } else if (!(cache.empty && !cache.written.has(id))) {
        unknown.push(id);
      }
    }
    return unknown;
  }

  /** Remembers rows read from the database, and the asked ids that were absent. */
  remember(sync: string, rows: ReadonlyMap<string, FingerprintHit>, absent: readonly string[]): void {
    const cache = this.syncs.get(sync);
    if (cache === undefined) return;
    if (cache.entries.size + rows.size > MAX_ENTRIES) cache.entries.clear();
    for (const [id, hit] of rows) cache.entries.set(id, hit);
    for (const id of absent) cache.entries.set(id, null);
  }

  /** Committed writes of these records: forget what was cached about them. */
  written(keys: Iterable<{ sync: string; remoteId: string }>): void {
    for (const { sync, remoteId } of keys) {
      const cache = this.syncs.get(sync);
      if (cache === undefined) continue;
      cache.entries.delete(remoteId);
      if (!cache.empty) continue;
      cache.written.add(remoteId);
      // Memory stays bounded: past this many writes, lookups of the sync go to the database.
      if (cache.written.size > MAX_ENTRIES) {
        cache.empty = false;
        cache.written.clear();
      }
    }
  }
}

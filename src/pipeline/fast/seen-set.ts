/**
 * The fast path of the seen-ids port (src/pipeline/seen-ids.ts, whose plain
 * path is a `Set`): the remote ids one read saw, for `deletes: mirror` after
 * a complete read and for duplicate ids within a read. Up to a memory budget the ids go into
 * a {@link CompactIdSet} (a few hundred thousand ids of ten characters);
 * past it, that set is kept as it is and the ids after it go to a temporary
 * SQLite file, so a 10-million-record sync keeps its memory flat. Nothing is
 * moved when the budget is reached: moving the ids held into the file would
 * hold the event loop (and every request in flight) meanwhile.
 *
 * In the file, new ids wait in a small in-memory batch and are written a
 * batch at a time (one statement per batch), and a fixed-size Bloom filter
 * answers "certainly new" for almost every id without a query: only its
 * rare "maybe" asks the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { BloomFilter } from './bloom-filter.js';
import { CompactIdSet } from './compact-id-set.js';
import type { SeenIds } from '../seen-ids.js';

/**
 * Memory the ids may take before spilling: some 131,000 ids of up to ten
 * characters, or 58,000 UUIDs (the arrays grow by doubling, and the next
 * doubling would pass it). Spilling adds a fixed 2 MiB Bloom filter, up to
 * 2 MiB of SQLite page cache and a pending batch.
 *
 * Why 4 MiB: a run of a million records fills whatever budget there is, so
 * the budget is most of what a long run's memory grows by over a short
 * one's, and ferry's memory goal lets it grow by a tenth; a smaller budget
 * saves no more and sends more ids through the file. The measurements
 * behind the choice: docs/performance.md.
 */
const IN_MEMORY_BYTES = 4 * 1024 * 1024;
const BATCH = 5_000;

interface Spill {
  dir: string;
  db: SqliteDatabase;
  bloom: BloomFilter;
  /** Added, not yet written. */
  pending: Set<string>;
  insertMany: Statement<[string]>;
  lookup: Statement<[string], number>;
}

export interface SeenSetLimits {
  /** Bytes the in-memory ids may take (default 4 MiB). */
  bytes?: number;
  /** Ids kept in memory at most (no limit by default; tests spill early with it). */
  ids?: number;
}

export class SeenSet implements SeenIds {
  private memory: CompactIdSet | undefined;
  private spilled: Spill | undefined;
  private readonly maxIds: number;

  constructor(limits: SeenSetLimits = {}) {
    this.memory = new CompactIdSet(limits.bytes ?? IN_MEMORY_BYTES);
    this.maxIds = limits.ids ?? Number.POSITIVE_INFINITY;
  }

  add(id: string): void {
    this.addNew(id);
  }

  /** Adds `id` and tells whether it was new. */
  addNew(id: string): boolean {
    const memory = this.memory;
    if (!memory) return true; // closed: the run is over, nothing asks any more
    const spill = this.spilled;
    if (!spill) {
      const added = memory.size < this.maxIds ? memory.addNew(id) : memory.has(id) ? false : undefined;
      if (added !== undefined) return added;
      // Full: the ids held stay where they are; this one and the ones after it go to the file.
      this.spilled = openSpill();
      return this.addNew(id);
    }
    if (memory.has(id)) return false;
    // Adding first is safe: an id already in the file or in pending has its bits set anyway, so a
    // "certainly new" answer needs no look at either (the common case: one hash, one Set add).
    if (spill.bloom.addAndTell(id) && (spill.pending.has(id) || spill.lookup.get(id) !== undefined)) return false;
    spill.pending.add(id);
    if (spill.pending.size >= BATCH) this.write(spill);
    return true;
  }

  has(id: string): boolean {
    if (this.memory?.has(id)) return true;
    const spill = this.spilled;
    if (!spill) return false;
    return spill.pending.has(id) || (spill.bloom.mayHave(id) && spill.lookup.get(id) !== undefined);
  }

  close(): void {
    this.memory = undefined;
    const spill = this.spilled;
    this.spilled = undefined;
    if (!spill) return;
    spill.db.close();
    rmSync(spill.dir, { recursive: true, force: true });
  }

  private write(spill: Spill): void {
    insert(spill, spill.pending);
    spill.pending.clear();
  }
}

/** The temporary file (and its filter) for the ids past the in-memory budget. */
function openSpill(): Spill {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-seen-'));
  const db = new Database(join(dir, 'seen.db'));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  // better-sqlite3's default page cache is 16 MB; the Bloom filter spares most look-ups, so 2 MB serve.
  db.pragma('cache_size = -2048');
  db.exec('CREATE TABLE seen (id TEXT PRIMARY KEY) WITHOUT ROWID');
  return {
    dir,
    db,
    bloom: new BloomFilter(),
    pending: new Set(),
    // One statement per batch: the ids go in as one JSON array.
    insertMany: db.prepare('INSERT OR IGNORE INTO seen (id) SELECT value FROM json_each(?)'),
    lookup: db.prepare<[string], number>('SELECT 1 FROM seen WHERE id = ?').pluck(),
  };
}

/**
 * Writes ids in one statement, as one JSON array (the test covers ids JSON escapes: quotes, lone surrogates, NUL).
 * Sorted first: ids in random order (UUIDs, hashes) then reach the B-tree's pages in order, each page once per
 * batch.
 */
function insert(spill: Spill, ids: Set<string>): void {
  spill.insertMany.run(JSON.stringify([...ids].sort()));
}

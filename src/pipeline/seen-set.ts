/**
 * The remote ids one read saw: for `deletes: mirror` after a complete read,
 * and for duplicate ids within a read. Small sets stay in memory; past a
 * threshold the ids move to a temporary SQLite file, so a 10-million-record
 * sync keeps its memory flat.
 *
 * Once spilled, new ids wait in a small in-memory batch and are written a
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

/** Ids kept in memory before spilling (a few MB at most; a larger run's memory stays where this one's is). */
const IN_MEMORY_LIMIT = 20_000;
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

export class SeenSet {
  private memory: Set<string> | undefined = new Set();
  private spilled: Spill | undefined;

  constructor(private readonly limit = IN_MEMORY_LIMIT) {}

  add(id: string): void {
    this.addNew(id);
  }

  /** Adds `id` and tells whether it was new. */
  addNew(id: string): boolean {
    const memory = this.memory;
    if (memory) {
      if (memory.has(id)) return false;
      memory.add(id);
      if (memory.size > this.limit) this.spill(memory);
      return true;
    }
    const spill = this.spilled;
    if (!spill) return true; // closed: the run is over, nothing asks any more
    // Adding first is safe: an id already in the file or in pending has its bits set anyway, so a
    // "certainly new" answer needs no look at either (the common case: one hash, one Set add).
    if (spill.bloom.addAndTell(id) && (spill.pending.has(id) || spill.lookup.get(id) !== undefined)) return false;
    spill.pending.add(id);
    if (spill.pending.size >= BATCH) this.write(spill);
    return true;
  }

  has(id: string): boolean {
    if (this.memory) return this.memory.has(id);
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

  private spill(memory: Set<string>): void {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-seen-'));
    const db = new Database(join(dir, 'seen.db'));
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec('CREATE TABLE seen (id TEXT PRIMARY KEY) WITHOUT ROWID');
    const spill: Spill = {
      dir,
      db,
      bloom: new BloomFilter(),
      pending: new Set(),
      // One statement per batch: the ids go in as one JSON array.
      insertMany: db.prepare('INSERT OR IGNORE INTO seen (id) SELECT value FROM json_each(?)'),
      lookup: db.prepare<[string], number>('SELECT 1 FROM seen WHERE id = ?').pluck(),
    };
    this.spilled = spill;
    this.memory = undefined;
    for (const id of memory) spill.bloom.add(id);
    insert(spill, memory);
  }

  private write(spill: Spill): void {
    insert(spill, spill.pending);
    spill.pending.clear();
  }
}

/** Writes ids in one statement, as one JSON array (the test covers ids JSON escapes: quotes, lone surrogates, NUL). */
function insert(spill: Spill, ids: Set<string>): void {
  spill.insertMany.run(JSON.stringify([...ids]));
}

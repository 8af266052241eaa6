/**
 * The remote ids a complete read saw, for `deletes: mirror`. Small sets stay
 * in memory; past a threshold they move to a temporary SQLite file, so a
 * 10-million-record sync mirrors deletes in bounded memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';

const IN_MEMORY_LIMIT = 100_000;
const BATCH = 5_000;

export class SeenSet {
  private memory: Set<string> | undefined = new Set();
  private db: SqliteDatabase | undefined;
  private dir: string | undefined;
  private insert: Statement<[string]> | undefined;
  private lookup: Statement<[string], { one: number }> | undefined;
  private pending: string[] = [];
  private uncommitted = 0;

  constructor(private readonly limit = IN_MEMORY_LIMIT) {}

  add(id: string): void {
    if (this.memory) {
      this.memory.add(id);
      if (this.memory.size > this.limit) this.spill();
      return;
    }
    this.pending.push(id);
    if (this.pending.length >= BATCH) this.write();
  }

  /**
   * Adds `id` and tells whether it was new. Once spilled, one `INSERT OR
   * IGNORE` per id inside a transaction committed every few thousand ids (a
   * commit per id would cost a few hundred microseconds each).
   */
  addNew(id: string): boolean {
    if (this.memory) {
      if (this.memory.has(id)) return false;
      this.add(id);
      return true;
    }
    this.write();
    const db = this.db!;
    if (!db.inTransaction) db.exec('BEGIN');
    const isNew = this.insert!.run(id).changes > 0;
    if (++this.uncommitted >= BATCH) {
      db.exec('COMMIT');
      this.uncommitted = 0;
    }
    return isNew;
  }

  has(id: string): boolean {
    if (this.memory) return this.memory.has(id);
    this.write();
    return this.lookup!.get(id) !== undefined;
  }

  close(): void {
    this.memory = undefined;
    this.db?.close();
    this.db = undefined;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private spill(): void {
    this.dir = mkdtempSync(join(tmpdir(), 'ferry-seen-'));
    this.db = new Database(join(this.dir, 'seen.db'));
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec('CREATE TABLE seen (id TEXT PRIMARY KEY) WITHOUT ROWID');
    this.insert = this.db.prepare('INSERT OR IGNORE INTO seen (id) VALUES (?)');
    this.lookup = this.db.prepare('SELECT 1 AS one FROM seen WHERE id = ?');
    this.pending = [...this.memory!];
    this.memory = undefined;
    this.write();
  }

  private write(): void {
    if (!this.db || this.pending.length === 0) return;
    const ids = this.pending;
    this.pending = [];
    this.db.transaction(() => {
      for (const id of ids) this.insert!.run(id);
    })();
  }
}

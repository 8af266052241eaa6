/**
 * A throw-away SQLite file holding grouped records, so grouping works on
 * inputs larger than memory and a group key that comes back later is merged
 * with its earlier records. Deleted on close.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RecordOrigin, SourceData } from '../sdk/types.js';

export const GroupState = { pending: 0, emitted: 1 } as const;
export type GroupStateValue = (typeof GroupState)[keyof typeof GroupState];

/** The lowest and highest cursor value among a group's records. */
export interface CursorBounds {
  lowest: string | number;
  highest: string | number;
}

export interface StoredGroup {
  id: number;
  key: string;
  firstSeq: number;
  state: GroupStateValue;
}

// Statements are grouped into transactions of this many writes: committing
// each on its own costs a round of file locking and page writes apiece.
const WRITES_PER_TRANSACTION = 5000;

export class GroupStore {
  private readonly db: Database.Database;
  private readonly file: string;
  private writes = 0;
  private readonly statements;

  constructor(dir: string = tmpdir()) {
    this.file = join(dir, `ferry-group-${process.pid}-${randomUUID()}.db`);
    this.db = new Database(this.file);
    // Scratch data: a crash loses nothing that the source cannot give again.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('locking_mode = EXCLUSIVE');
    this.db.pragma('cache_size = -32768');
    this.db.exec(`
      CREATE TABLE groups (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, first_seq INTEGER NOT NULL, state INTEGER NOT NULL,
                           bounds TEXT);
      -- Each page of unsent groups starts where the last one ended; without it, every page scanned and sorted the whole table.
      CREATE INDEX groups_first_seq ON groups (first_seq);
      CREATE TABLE records (gid INTEGER NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, origin TEXT NOT NULL,
                            PRIMARY KEY (gid, seq)) WITHOUT ROWID;
    `);
    this.statements = {
      find: this.db.prepare<[string], { id: number; key: string; first_seq: number; state: GroupStateValue }>(
        'SELECT id, key, first_seq, state FROM groups WHERE key = ?',
      ),
      create: this.db.prepare<[string, number]>('INSERT INTO groups (key, first_seq, state) VALUES (?, ?, 0)'),
      setState: this.db.prepare<[number, number]>('UPDATE groups SET state = ? WHERE id = ?'),
      insert: this.db.prepare<[number, number, string, string]>('INSERT INTO records (gid, seq, data, origin) VALUES (?, ?, ?, ?)'),
      read: this.db.prepare<[number], { data: string; origin: string }>('SELECT data, origin FROM records WHERE gid = ? ORDER BY seq'),
      getBounds: this.db.prepare<[number], string | null>('SELECT bounds FROM groups WHERE id = ?').pluck(),
      setBounds: this.db.prepare<[string, number]>('UPDATE groups SET bounds = ? WHERE id = ?'),
      unsent: this.db.prepare<[number, number], { id: number; key: string; first_seq: number; state: GroupStateValue }>(
        'SELECT id, key, first_seq, state FROM groups WHERE state != 1 AND first_seq > ? ORDER BY first_seq LIMIT ?',
      ),
    };
    this.db.exec('BEGIN');
  }

  private wrote(): void {
    if (++this.writes % WRITES_PER_TRANSACTION === 0) this.db.exec('COMMIT; BEGIN');
  }

  /** The group for a key, created (pending) at `seq` when new. */
  group(key: string, seq: number): StoredGroup {
    const row = this.statements.find.get(key);
    if (row) return { id: row.id, key: row.key, firstSeq: row.first_seq, state: row.state };
    const info = this.statements.create.run(key, seq);
    this.wrote();
    return { id: Number(info.lastInsertRowid), key, firstSeq: seq, state: GroupState.pending };
  }

  setState(id: number, state: GroupStateValue): void {
    this.statements.setState.run(state, id);
    this.wrote();
  }

  append(gid: number, seq: number, data: SourceData, origin: RecordOrigin): void {
    this.statements.insert.run(gid, seq, JSON.stringify(data), JSON.stringify(origin));
    this.wrote();
  }

  /** The cursor bounds of a group's records, as far as stored. */
  bounds(gid: number): CursorBounds | undefined {
    const text = this.statements.getBounds.get(gid);
    return typeof text === 'string' ? (JSON.parse(text) as CursorBounds) : undefined;
  }

  setBounds(gid: number, bounds: CursorBounds): void {
    this.statements.setBounds.run(JSON.stringify(bounds), gid);
    this.wrote();
  }

  /** A group's records and origins in source order. */
  read(gid: number): { records: SourceData[]; origins: RecordOrigin[] } {
    const records: SourceData[] = [];
    const origins: RecordOrigin[] = [];
    for (const row of this.statements.read.all(gid)) {
      records.push(JSON.parse(row.data) as SourceData);
      origins.push(JSON.parse(row.origin) as RecordOrigin);
    }
    return { records, origins };
  }

  /** Groups not emitted yet, in first-seen order, a page at a time. */
  unsent(afterSeq: number, limit: number): StoredGroup[] {
    return this.statements.unsent
      .all(afterSeq, limit)
      .map((row) => ({ id: row.id, key: row.key, firstSeq: row.first_seq, state: row.state }));
  }

  close(): void {
    if (this.db.open) this.db.close();
    rmSync(this.file, { force: true });
    rmSync(`${this.file}-journal`, { force: true });
  }
}

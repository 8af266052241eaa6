/** The cursors table: one committed high-watermark per sync. */
import type { Statement } from 'better-sqlite3';
import type { CursorPosition } from '../../sdk/types.js';
import type { Db } from './database.js';
import { decodeCursor, encodeCursor } from './cursor-codec.js';

export class CursorTable {
  private readonly getStmt: Statement<[string], string>;
  private readonly setStmt: Statement<[string, string, string]>;
  private readonly deleteStmt: Statement<[string]>;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], string>('SELECT position FROM cursors WHERE sync = ?').pluck();
    this.setStmt = db.prepare(
      'INSERT INTO cursors (sync, position, updated_at) VALUES (?, ?, ?) ON CONFLICT (sync) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at',
    );
    this.deleteStmt = db.prepare('DELETE FROM cursors WHERE sync = ?');
  }

  get(sync: string): CursorPosition | undefined {
    const text = this.getStmt.get(sync);
    return text === undefined ? undefined : decodeCursor(text, sync);
  }

  set(sync: string, position: CursorPosition, at: string): void {
    this.setEncoded(sync, encodeCursor(sync, position), at);
  }

  /** A position {@link encodeCursor} made (on another thread, say). */
  setEncoded(sync: string, position: string, at: string): void {
    this.setStmt.run(sync, position, at);
  }

  delete(sync: string): void {
    this.deleteStmt.run(sync);
  }
}

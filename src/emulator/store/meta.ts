/** Small key/value settings that must survive restarts (the dev key, the media signing secret). */
import { prepared, type Db } from './database.js';

export class MetaRepo {
  constructor(private readonly db: Db) {}

  get(key: string): string | undefined {
    const row = prepared(this.db, 'SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  set(key: string, value: string): void {
    prepared(this.db, 'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** The stored value, or `create()`'s result stored now. */
  getOrCreate(key: string, create: () => string): string {
    const existing = this.get(key);
    if (existing !== undefined) return existing;
    const value = create();
    this.set(key, value);
    return value;
  }
}

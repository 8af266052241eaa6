/**
 * The SQLite side of {@link ExportFingerprintStore}: the table
 * `export_fingerprints` (migration 5). Written on the store's own
 * connection, each call one transaction.
 */
import type { Db } from './database.js';
import { inChunks } from '../../sdk/chunks.js';
import { LIVE_CHUNK, type StagedFingerprint } from '../export-fingerprints.js';

/** Keys per look-up statement (well under SQLite's 32,766 parameters). */
const LOOKUP_CHUNK = 500;

export class ExportFingerprintTable {
  constructor(private readonly db: Db) {}

  lookup(exportKey: string, keys: readonly string[]): Map<string, string> {
    const found = new Map<string, string>();
    for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
      const part = keys.slice(i, i + LOOKUP_CHUNK);
      const rows = this.db
        .prepare<string[], { record_key: string; fingerprint: string }>(
          `SELECT record_key, fingerprint FROM export_fingerprints
            WHERE export = ? AND record_key IN (${part.map(() => '?').join(',')}) AND fingerprint IS NOT NULL`,
        )
        .all(exportKey, ...part);
      for (const row of rows) found.set(row.record_key, row.fingerprint);
    }
    return found;
  }

  count(exportKey: string): number {
    return this.db.prepare<[string], number>('SELECT count(*) FROM export_fingerprints WHERE export = ? AND fingerprint IS NOT NULL').pluck().get(exportKey) ?? 0;
  }

  stage(exportKey: string, loadId: string, entries: readonly StagedFingerprint[]): void {
    const put = this.db.prepare(
      `INSERT INTO export_fingerprints (export, record_key, staged, staged_load) VALUES (?, ?, ?, ?)
       ON CONFLICT (export, record_key) DO UPDATE SET staged = excluded.staged, staged_load = excluded.staged_load`,
    );
    this.db.transaction(() => {
      for (const [key, fingerprint] of entries) put.run(exportKey, key, fingerprint, loadId);
    })();
  }

  stageUnlisted(exportKey: string, loadId: string, live: Iterable<string>): number {
    return this.db.transaction(() => {
      this.db.exec('CREATE TEMP TABLE IF NOT EXISTS export_listed (record_key TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM export_listed;');
      const put = this.db.prepare('INSERT OR IGNORE INTO export_listed (record_key) VALUES (?)');
      for (const chunk of inChunks(live, LIVE_CHUNK)) for (const key of chunk) put.run(key);
      const { changes } = this.db
        .prepare(
          `UPDATE export_fingerprints SET staged = NULL, staged_load = ?
            WHERE export = ? AND fingerprint IS NOT NULL AND record_key NOT IN (SELECT record_key FROM export_listed)`,
        )
        .run(loadId, exportKey);
      this.db.exec('DELETE FROM export_listed');
      return changes;
    })();
  }

  commit(exportKey: string, loadId: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM export_fingerprints WHERE export = ? AND staged_load = ? AND staged IS NULL').run(exportKey, loadId);
      this.db.prepare('UPDATE export_fingerprints SET fingerprint = staged, staged = NULL, staged_load = NULL WHERE export = ? AND staged_load = ?').run(exportKey, loadId);
      // What killed loads staged: their records never got a committed fingerprint, or keep the one before.
      this.db.prepare('DELETE FROM export_fingerprints WHERE export = ? AND staged_load IS NOT NULL AND fingerprint IS NULL').run(exportKey);
      this.db.prepare('UPDATE export_fingerprints SET staged = NULL, staged_load = NULL WHERE export = ? AND staged_load IS NOT NULL').run(exportKey);
    })();
  }

  deleteExport(exportKey: string): void {
    this.db.prepare('DELETE FROM export_fingerprints WHERE export = ?').run(exportKey);
  }
}

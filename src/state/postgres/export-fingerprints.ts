/**
 * The PostgreSQL side of {@link ExportFingerprintStore}: the table
 * `export_fingerprints` (migration 4), each call one statement or one
 * transaction. Keys travel as arrays (`unnest`), not one parameter each.
 */
import type { Pool, Queryable } from './database.js';
import { inTransaction } from './database.js';
import { inChunks } from '../../sdk/chunks.js';
import { LIVE_CHUNK, type StagedFingerprint } from '../export-fingerprints.js';

export class PgExportFingerprints {
  readonly #table: string;

  /** `s`: the quoted schema. */
  constructor(s: string) {
    this.#table = `${s}.export_fingerprints`;
  }

  async lookup(pool: Pool, exportKey: string, keys: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (keys.length === 0) return found;
    const { rows } = await pool.query<{ record_key: string; fingerprint: string }>(
      `SELECT record_key, fingerprint FROM ${this.#table} WHERE export = $1 AND record_key = ANY($2::text[]) AND fingerprint IS NOT NULL`,
      [exportKey, keys],
    );
    for (const row of rows) found.set(row.record_key, row.fingerprint);
    return found;
  }

  async count(pool: Pool, exportKey: string): Promise<number> {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.#table} WHERE export = $1 AND fingerprint IS NOT NULL`, [exportKey]);
    return Number(rows[0]?.n ?? 0);
  }

  async stage(pool: Pool, exportKey: string, loadId: string, entries: readonly StagedFingerprint[]): Promise<void> {
    if (entries.length === 0) return;
    await pool.query(
      `INSERT INTO ${this.#table} (export, record_key, staged, staged_load)
       SELECT $1, k, f, $2 FROM unnest($3::text[], $4::text[]) AS e(k, f)
       ON CONFLICT (export, record_key) DO UPDATE SET staged = excluded.staged, staged_load = excluded.staged_load`,
      [exportKey, loadId, entries.map(([key]) => key), entries.map(([, fingerprint]) => fingerprint)],
    );
  }

  async stageUnlisted(pool: Pool, exportKey: string, loadId: string, live: Iterable<string>): Promise<number> {
    return inTransaction(pool, async (db) => {
      await db.query('CREATE TEMP TABLE ferry_export_listed (record_key text PRIMARY KEY) ON COMMIT DROP');
      for (const chunk of inChunks(live, LIVE_CHUNK)) {
        await db.query('INSERT INTO ferry_export_listed SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING', [chunk]);
      }
      const result = await db.query(
        `UPDATE ${this.#table} f SET staged = NULL, staged_load = $1
          WHERE f.export = $2 AND f.fingerprint IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM ferry_export_listed l WHERE l.record_key = f.record_key)`,
        [loadId, exportKey],
      );
      return result.rowCount ?? 0;
    });
  }

  async commit(pool: Pool, exportKey: string, loadId: string): Promise<void> {
    await inTransaction(pool, async (db) => {
      await db.query(`DELETE FROM ${this.#table} WHERE export = $1 AND staged_load = $2 AND staged IS NULL`, [exportKey, loadId]);
      await db.query(`UPDATE ${this.#table} SET fingerprint = staged, staged = NULL, staged_load = NULL WHERE export = $1 AND staged_load = $2`, [exportKey, loadId]);
      // What killed loads staged: their records never got a committed fingerprint, or keep the one before.
      await db.query(`DELETE FROM ${this.#table} WHERE export = $1 AND staged_load IS NOT NULL AND fingerprint IS NULL`, [exportKey]);
      await db.query(`UPDATE ${this.#table} SET staged = NULL, staged_load = NULL WHERE export = $1 AND staged_load IS NOT NULL`, [exportKey]);
    });
  }

  async deleteExport(db: Queryable, exportKey: string): Promise<void> {
    await db.query(`DELETE FROM ${this.#table} WHERE export = $1`, [exportKey]);
  }
}

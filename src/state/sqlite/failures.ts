/**
 * The dead-letter: records ferry or the service refused, with the mapped body,
 * the service's answer and the record's origin, until a retry lands them or
 * they are purged.
 */
import { failureEntryOf, type FailureRow } from '../rows.js';
import type { Statement } from 'better-sqlite3';
import type { FailureEntry, FailureFilter, FailureWrite } from '../types.js';
import type { Db } from './database.js';
import { toJson } from './json.js';

interface Match {
  sync: string;
  remoteId: string | null;
  origin: string | null;
  sourceRecord: string | null;
  replaces: number | null;
}

/**
 * Which open entries a new failure repeats (see {@link FailureTable.write}):
 * three indexed lookups rather than one OR, which SQLite would answer by
 * scanning every failure of the sync. `IS` so that two absent source records
 * compare equal; a null remote id or origin matches nothing.
 */
const SAME_RECORD = `
  SELECT id, attempts FROM failures WHERE sync = @sync AND remote_id = @remoteId
  UNION SELECT id, attempts FROM failures WHERE sync = @sync AND origin = @origin AND source_record IS @sourceRecord
  UNION SELECT id, attempts FROM failures WHERE id = @replaces AND sync = @sync`;

export class FailureTable {
  private readonly sameRecord: Statement<[Match], { id: number; attempts: number }>;
  private readonly deleteById: Statement<[number]>;
  private readonly deleteForRecord: Statement<[string, string]>;
  private readonly anyForRecords: Statement<[string], number>;
  private readonly insert: Statement;

  constructor(private readonly db: Db) {
    this.sameRecord = db.prepare<[Match], { id: number; attempts: number }>(SAME_RECORD);
    this.deleteById = db.prepare<[number]>('DELETE FROM failures WHERE id = ?');
    this.deleteForRecord = db.prepare('DELETE FROM failures WHERE sync = ? AND remote_id = ?');
    this.anyForRecords = db.prepare<[string], number>('SELECT EXISTS (SELECT 1 FROM failures WHERE sync = ? AND remote_id IS NOT NULL)').pluck();
    this.insert = db.prepare(`
      INSERT INTO failures (sync, run_id, remote_id, origin, kind, reason, status, error_body, body, source_record, attempts, created_at)
      VALUES (@sync, @runId, @remoteId, @origin, @kind, @reason, @status, @errorBody, @body, @sourceRecord, @attempts, @at)`);
  }

  /**
   * Adds a failure. Open entries of the same record are replaced and the
   * attempt count carried over (the highest plus one), so a record has one
   * entry however often it fails. The same record is: the same remote id;
   * or, when the id could not be mapped, the same origin holding the same
   * source record (an origin alone, like a page URL, may hold many records);
   * or the entry `replaces` names (a `failures retry` of it).
   */
  write(f: FailureWrite, at: string): void {
    const sourceRecord = toJson(f.sourceRecord);
    const match: Match = { sync: f.sync, remoteId: f.remoteId, origin: f.origin, sourceRecord, replaces: f.replaces ?? null };
    let attempts = 1;
    for (const repeat of this.sameRecord.all(match)) {
      attempts = Math.max(attempts, repeat.attempts + 1);
      this.deleteById.run(repeat.id);
    }
    this.insert.run({
      sync: f.sync,
      runId: f.runId,
      remoteId: f.remoteId,
      origin: f.origin,
      kind: f.kind,
      reason: f.reason,
      status: f.status,
      errorBody: toJson(f.errorBody),
      body: toJson(f.body),
      sourceRecord,
      attempts,
      at,
    });
  }

  /** Whether the sync has any open failure of a record (one with a remote id): what `resolve` could delete. */
  hasRecordFailures(sync: string): boolean {
    return this.anyForRecords.get(sync) === 1;
  }

  /** A record that landed has no open failure any more. */
  resolve(sync: string, remoteId: string): void {
    this.deleteForRecord.run(sync, remoteId);
  }

  list(filter: FailureFilter): FailureEntry[] {
    const conditions = [...(filter.sync === undefined ? [] : ['sync = @sync']), ...(filter.beforeId === undefined ? [] : ['id < @beforeId'])];
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const limit = filter.limit === undefined ? '' : 'LIMIT @limit';
    const rows = this.db
      .prepare(`SELECT * FROM failures ${where} ORDER BY id DESC ${limit}`)
      .all(params(filter)) as FailureRow[];
    return rows.map(failureEntryOf);
  }

  count(sync?: string): number {
    if (sync === undefined) return this.db.prepare<[], number>('SELECT count(*) FROM failures').pluck().get() ?? 0;
    return this.db.prepare<[string], number>('SELECT count(*) FROM failures WHERE sync = ?').pluck().get(sync) ?? 0;
  }

  remove(id: number): void {
    this.deleteById.run(id);
  }

  purge(sync?: string): number {
    const result =
      sync === undefined ? this.db.prepare('DELETE FROM failures').run() : this.db.prepare('DELETE FROM failures WHERE sync = ?').run(sync);
    return result.changes;
  }
}

function params(filter: FailureFilter): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (filter.sync !== undefined) out.sync = filter.sync;
  if (filter.beforeId !== undefined) out.beforeId = filter.beforeId;
  if (filter.limit !== undefined) out.limit = Math.max(0, Math.trunc(filter.limit));
  return out;
}


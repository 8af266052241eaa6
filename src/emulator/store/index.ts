/**
 * The emulator's store: one SQLite database and a repository per entity.
 * Everything that changes a record goes through `putRecord`/`deleteRecord`,
 * which keep the full-text index in step inside the same transaction.
 *
 * Extension points for seed generators and enrichment: `putRecord` (any
 * kind, native or pushed), `crm.upsertDeal` / `crm.upsertAccount`,
 * `media.put`, and `search` (FTS5 passages of visible records).
 */
import { AskRunsRepo } from './ask-runs.js';
import { CrmRepo } from './crm.js';
import { openDatabase, type Db } from './database.js';
import { MediaRepo } from './media.js';
import { MetaRepo } from './meta.js';
import { ObjectTypesRepo } from './object-types.js';
import { RecordsRepo, type RecordKey, type RecordWrite } from './records.js';
import { SearchIndex } from './search-index.js';
import { SourcesRepo } from './sources.js';
import type { RecordKind, StoredRecord } from './types.js';

export class EmulatorStore {
  readonly db: Db;
  readonly meta: MetaRepo;
  readonly sources: SourcesRepo;
  readonly objectTypes: ObjectTypesRepo;
  readonly records: RecordsRepo;
  readonly crm: CrmRepo;
  readonly askRuns: AskRunsRepo;
  readonly media: MediaRepo;
  readonly search: SearchIndex;
  /** The open group-commit transaction's commit, if one is open. */
  private batch: Promise<void> | undefined;
  // Made once: `db.transaction` builds a wrapper of several functions per call, which showed in every pushed record's write.
  private readonly putInTransaction: (key: RecordKey, write: RecordWrite<RecordKind>, now: number) => { record: StoredRecord; status: 'created' | 'updated' };
  private readonly deleteInTransaction: (id: string, now: number) => void;

  constructor(path: string) {
    this.db = openDatabase(path);
    this.meta = new MetaRepo(this.db);
    this.sources = new SourcesRepo(this.db);
    this.objectTypes = new ObjectTypesRepo(this.db);
    this.records = new RecordsRepo(this.db);
    this.crm = new CrmRepo(this.db);
    this.askRuns = new AskRunsRepo(this.db);
    this.media = new MediaRepo(this.db);
    this.search = new SearchIndex(this.db, (id) => this.records.findAny(id));
    this.putInTransaction = this.db.transaction((key: RecordKey, write: RecordWrite<RecordKind>, now: number) => {
      const result = this.records.upsert(key, write, now);
      this.search.markStale(result.record.id);
      return result;
    });
    this.deleteInTransaction = this.db.transaction((id: string, now: number) => {
      this.records.softDelete(id, now);
      this.search.markStale(id);
    });
    if (this.meta.get('search_rebuild') === '1') this.rebuildSearchIndex();
  }

  /**
   * Group commit. Opens a transaction (unless one is open) that every write
   * until the next turn of the event loop joins, then commits it once: one
   * WAL append and its syscalls for all the requests handled in that turn,
   * instead of one per request. Transactions run meanwhile become savepoints
   * of it, so a failing write still rolls back alone. Answers wait for
   * `whenCommitted()`, so nothing is acknowledged before it is stored.
   */
  beginWriteBatch(): void {
    if (this.db.inTransaction) return;
    this.db.exec('BEGIN');
    this.batch = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        try {
          this.commitWriteBatch();
          resolve();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    // A failed commit is reported to the requests that wait for it, not as an unhandled rejection.
    this.batch.catch(() => undefined);
  }

  /** Resolves once the writes made so far are committed. */
  whenCommitted(): Promise<void> {
    return this.db.inTransaction && this.batch ? this.batch : Promise.resolve();
  }

  private commitWriteBatch(): void {
    this.batch = undefined;
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      // Never leave the batch open: later writes would join a transaction nobody commits.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Re-create every passage from the records (after a change of the index layout). */
  rebuildSearchIndex(): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM search_passages; DELETE FROM search_rows; DELETE FROM search_pending;');
      for (const record of this.records.allVisible()) this.search.reindex(record);
      this.meta.set('search_rebuild', '0');
    })();
  }

  /** Upsert a record and refresh its passages in the search index. */
  putRecord<K extends RecordKind>(
    key: RecordKey & { kind: K },
    write: RecordWrite<K>,
    now = Date.now(),
  ): { record: StoredRecord<K>; status: 'created' | 'updated' } {
    return this.putInTransaction(key, write, now) as { record: StoredRecord<K>; status: 'created' | 'updated' };
  }

  /** Soft-delete a record and drop it from the search index. */
  deleteRecord(id: string, now = Date.now()): void {
    this.deleteInTransaction(id, now);
  }

  /** Remove all organization data (keeps meta: dev key and media secret). */
  reset(): void {
    this.db.exec(`
      DELETE FROM sources; DELETE FROM object_types; DELETE FROM records; DELETE FROM crm_deals;
      DELETE FROM crm_accounts; DELETE FROM ask_runs; DELETE FROM media; DELETE FROM search_passages;
      DELETE FROM search_rows; DELETE FROM search_pending;
    `);
  }

  close(): void {
    if (this.db.open) this.commitWriteBatch();
    this.db.close();
  }
}

export type { RecordKey, RecordWrite } from './records.js';
export { isVisible } from './records.js';
export * from './types.js';
export { InvalidCursorError } from './cursor.js';

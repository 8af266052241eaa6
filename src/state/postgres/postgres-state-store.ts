/**
 * The PostgreSQL state store: shared state for many processes and workers.
 * Same contract as the SQLite store (src/state/sqlite/sqlite-state-store.ts):
 * ledger and dead-letter writes are buffered and committed in batches (one
 * multi-row upsert per batch); a cursor moves only in `checkpoint()`, in the
 * same transaction as the acknowledgements it covers.
 *
 * The store is usable as soon as it is constructed: the pool connects and
 * migrates on first use, and every call waits for that.
 */
import { FerryError } from '../../sdk/errors.js';
import type { CursorPosition } from '../../sdk/types.js';
import type {
  AcknowledgedWrite,
  FailureEntry,
  FailureFilter,
  FailureWrite,
  FingerprintHit,
  LedgerEntry,
  LockHolder,
  ResetSelection,
  RunCounts,
  RunEntry,
  RunStatus,
  ServiceLimits,
  SourceLook,
  StateStore,
} from '../types.js';
import type { ExportConventions } from '../../sdk/types.js';
import { exportLayoutKey, parseExportLayout } from '../export-layouts.js';
import type { StagedFingerprint } from '../export-fingerprints.js';
import { PgExportFingerprints } from './export-fingerprints.js';
import { parseServiceLimits, SERVICE_LIMITS_KEY, serviceLimitsKey } from '../service-limits.js';
import { decodeCursor, encodeCursor } from '../sqlite/cursor-codec.js';
import { WriteBuffer } from '../sqlite/write-buffer.js';
import type { PendingWrite } from '../sqlite/write-buffer.js';
import { redactUrl } from '../../sdk/redact.js';
import { applyWrites } from './apply-writes.js';
import { checkSchemaName, createPool, inTransaction, migrate, pgStateError } from './database.js';
import type { Pool, Queryable } from './database.js';
import { PgFailures } from './failures.js';
import { LIVE_PAGE, PgLedger } from './ledger.js';
import { PgLocks } from './locks.js';
import { PgRuns } from './runs.js';

/** Full batches the buffer may hold before a write waits for the database to catch up. */
const BACKLOG_BATCHES = 4;

export interface PostgresStateStoreOptions {
  /** Schema holding ferry's tables; created on first use. Default `ferry`. */
  schema?: string;
  /** Buffered writes that trigger an automatic commit (which never moves a cursor). Default 500. */
  batchSize?: number;
  /** Connections in the pool. Default 4. */
  poolSize?: number;
  /** Milliseconds since the epoch; tests pass a fake clock to expire leases. Workers' clocks must agree (NTP). */
  now?: () => number;
}

export class PostgresStateStore implements StateStore {
  readonly where: string;
  readonly schemaName: string;
  private readonly pool: Pool;
  private readonly ready: Promise<void>;
  private readonly batchSize: number;
  private readonly now: () => number;
  private readonly buffer = new WriteBuffer();
  private readonly ledger: PgLedger;
  private readonly failureTable: PgFailures;
  private readonly runTable: PgRuns;
  private readonly locks: PgLocks;
  private readonly exportPrints: PgExportFingerprints;
  private readonly cursorsTable: string;
  /** Commits run one at a time, in call order, so buffered writes land in the order they were recorded. */
  private serial: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The batch being committed in the background by {@link enqueue}, and its error once it failed. */
  private background: { error?: unknown } | undefined;
  /** Runs started through this store: failures naming them need no existence check. */
  private readonly knownRuns = new Set<string>();

  constructor(url: string, options: PostgresStateStoreOptions = {}) {
    this.where = redactUrl(url);
    this.schemaName = checkSchemaName(options.schema ?? 'ferry');
    const s = `"${this.schemaName}"`;
    this.batchSize = Math.max(1, options.batchSize ?? 500);
    this.now = options.now ?? Date.now;
    this.pool = createPool(url, options.poolSize ?? 4);
    this.ledger = new PgLedger(s);
    this.failureTable = new PgFailures(s);
    this.runTable = new PgRuns(s);
    this.locks = new PgLocks(s);
    this.exportPrints = new PgExportFingerprints(s);
    this.cursorsTable = `${s}.cursors`;
    this.ready = migrate({ pool: this.pool, schema: s, where: this.where }, this.schemaName).catch((cause: unknown) => {
      throw pgStateError('open the state store', this.where, cause);
    });
    // Reported by the first call that awaits it, not as an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  // ── ledger ────────────────────────────────────────────────────────────────

  async fingerprints(sync: string, remoteIds: readonly string[]): Promise<Map<string, FingerprintHit>> {
    return this.guard('look up fingerprints', async () => {
      if (this.buffer.touches(sync, remoteIds)) await this.commit(undefined);
      return this.ledger.fingerprints(this.pool, sync, remoteIds);
    });
  }

  async unchangedAtSource(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): Promise<SourceLook> {
    return this.guard('look up source fingerprints', async () => {
      if (this.buffer.touches(sync, remoteIds)) await this.commit(undefined);
      return this.ledger.unchangedAtSource(this.pool, sync, remoteIds, sourcePrints);
    });
  }

  async ledgerEntry(sync: string, remoteId: string): Promise<LedgerEntry | undefined> {
    return this.guard('read the ledger', async () => {
      if (this.buffer.touches(sync, [remoteId])) await this.commit(undefined);
      return this.ledger.entry(this.pool, sync, remoteId);
    });
  }

  /** Pages of ids (keyset pagination): writes recorded while the caller walks the list are committed between pages. */
  liveRemoteIdPages(sync: string): AsyncIterable<readonly string[]> {
    const page = (after: string | undefined): Promise<string[]> =>
      this.guard('list live records', async () => {
        await this.commit(undefined);
        return this.ledger.livePage(this.pool, sync, after);
      });
    return {
      async *[Symbol.asyncIterator]() {
        let after: string | undefined;
        for (;;) {
          const ids = await page(after);
          if (ids.length > 0) yield ids;
          if (ids.length < LIVE_PAGE) return;
          after = ids[ids.length - 1];
        }
      },
    };
  }

  async countLive(sync: string): Promise<number> {
    return this.guard('count live records', async () => {
      await this.commit(undefined);
      return this.ledger.countLive(this.pool, sync);
    });
  }

  async hasLive(sync: string): Promise<boolean> {
    return this.guard('look for live records', async () => {
      await this.commit(undefined);
      return this.ledger.hasLive(this.pool, sync);
    });
  }

  async recordAcknowledged(e: AcknowledgedWrite): Promise<void> {
    await this.enqueue({ kind: 'acknowledged', write: { ...e }, at: this.isoNow() });
  }

  async recordFailure(f: FailureWrite): Promise<void> {
    // A run this store started is known: buffer at once, so the write keeps its place among the others.
    // Any other run id is checked first, so a bad one fails this call instead of every later commit.
    if (f.runId !== null && !this.knownRuns.has(f.runId)) {
      const runId = f.runId;
      if (!(await this.guard('check the run', () => this.failureTable.runExists(this.pool, runId)))) {
        throw new FerryError('FERRY_STATE_ERROR', `failure of sync "${f.sync}" names unknown run ${f.runId}`, {
          where: this.where,
          hint: 'pass the id returned by startRun(), or null',
        });
      }
    }
    await this.enqueue({ kind: 'failure', write: { ...f }, at: this.isoNow() });
  }

  async recordDeleted(sync: string, remoteId: string): Promise<void> {
    await this.enqueue({ kind: 'deleted', sync, remoteId, at: this.isoNow() });
  }

  // ── cursors ───────────────────────────────────────────────────────────────

  async cursor(sync: string): Promise<CursorPosition | undefined> {
    return this.guard('read the cursor', async () => {
      const { rows } = await this.pool.query<{ position: string }>(`SELECT position FROM ${this.cursorsTable} WHERE sync = $1`, [sync]);
      return rows[0] === undefined ? undefined : decodeCursor(rows[0].position, sync);
    });
  }

  async checkpoint(sync: string, cursor: CursorPosition | undefined): Promise<void> {
    await this.guard('checkpoint', () => this.commit(cursor === undefined ? undefined : { sync, cursor }));
  }

  async flush(): Promise<void> {
    await this.guard('commit buffered writes', () => this.commit(undefined));
  }

  // ── runs ──────────────────────────────────────────────────────────────────

  async startRun(sync: string): Promise<string> {
    const runId = await this.guard('start a run', () => this.runTable.start(this.pool, sync, this.now()));
    this.knownRuns.add(runId);
    return runId;
  }

  async updateRun(runId: string, counts: RunCounts): Promise<void> {
    await this.guard('update a run', () => this.runTable.update(this.pool, runId, counts));
  }

  async finishRun(runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }): Promise<void> {
    await this.guard('finish a run', () =>
      this.exclusive(async () => {
        const batch = [...this.buffer.pending()];
        await inTransaction(this.pool, async (db) => {
          await applyWrites(db, batch, this.tables());
          await this.runTable.finish(db, runId, r, this.now());
        });
        this.dropCommitted(batch.length);
      }),
    );
  }

  async runs(filter: { sync?: string; limit?: number } = {}): Promise<RunEntry[]> {
    return this.guard('list runs', () => this.runTable.list(this.pool, filter));
  }

  async lastRun(sync: string): Promise<RunEntry | undefined> {
    return (await this.runs({ sync, limit: 1 }))[0];
  }

  // ── dead-letter ───────────────────────────────────────────────────────────

  async failures(filter: FailureFilter = {}): Promise<FailureEntry[]> {
    return this.guard('list failures', async () => {
      await this.commit(undefined);
      return this.failureTable.list(this.pool, filter);
    });
  }

  async failureCount(sync?: string): Promise<number> {
    return this.guard('count failures', async () => {
      await this.commit(undefined);
      return this.failureTable.count(this.pool, sync);
    });
  }

  async removeFailure(id: number): Promise<void> {
    await this.guard('remove a failure', () => this.failureTable.remove(this.pool, id));
  }

  async purgeFailures(sync?: string): Promise<number> {
    return this.guard('purge failures', async () => {
      await this.commit(undefined);
      return this.failureTable.purge(this.pool, sync);
    });
  }

  // ── locks ─────────────────────────────────────────────────────────────────

  async acquireLock(sync: string, owner: string, ttlMs: number, options: { takeOverFrom?: string } = {}): Promise<boolean> {
    assertTtl(ttlMs);
    return this.guard('acquire the lock', async () => {
      const now = this.now();
      const result = await inTransaction(this.pool, (db) =>
        this.locks.acquire(db, { sync, owner, ttlMs, nowMs: now, takeOverFrom: options.takeOverFrom }, () => this.runTable.abandon(db, sync, now)),
      );
      return result !== 'held-by-other';
    });
  }

  async renewLock(sync: string, owner: string, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    return this.guard('renew the lock', () => this.locks.renew(this.pool, sync, owner, ttlMs, this.now()));
  }

  async releaseLock(sync: string, owner: string): Promise<void> {
    await this.guard('release the lock', () => this.locks.release(this.pool, sync, owner));
  }

  async lockHolder(sync: string): Promise<LockHolder | undefined> {
    return this.guard('read the lock', () => this.locks.holder(this.pool, sync));
  }

  // ── admin ─────────────────────────────────────────────────────────────────

  async serviceLimits(): Promise<ServiceLimits[]> {
    return this.guard('read the service limits', async () => {
      const { rows } = await this.pool.query<{ value: string }>(
        `SELECT value FROM "${this.schemaName}".meta WHERE left(key, length($1)) = $1 ORDER BY key`,
        [SERVICE_LIMITS_KEY],
      );
      return rows.flatMap((row) => parseServiceLimits(row.value) ?? []);
    });
  }

  async recordServiceLimits(limits: ServiceLimits): Promise<void> {
    await this.guard('store the service limits', () =>
      this.pool.query(
        `INSERT INTO "${this.schemaName}".meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [serviceLimitsKey(limits.service), JSON.stringify(limits)],
      ),
    );
  }

  async exportLayout(exportKey: string): Promise<ExportConventions | undefined> {
    return this.guard('read the export layout', async () => {
      const { rows } = await this.pool.query<{ value: string }>(`SELECT value FROM "${this.schemaName}".meta WHERE key = $1`, [exportLayoutKey(exportKey)]);
      return parseExportLayout(rows[0]?.value);
    });
  }

  async recordExportLayout(exportKey: string, layout: ExportConventions): Promise<void> {
    await this.guard('store the export layout', () =>
      this.pool.query(
        `INSERT INTO "${this.schemaName}".meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [exportLayoutKey(exportKey), JSON.stringify(layout)],
      ),
    );
  }

  // ── export fingerprints ───────────────────────────────────────────────────

  async exportFingerprints(exportKey: string, keys: readonly string[]): Promise<Map<string, string>> {
    return this.guard('read export fingerprints', () => this.exportPrints.lookup(this.pool, exportKey, keys));
  }

  async countExportFingerprints(exportKey: string): Promise<number> {
    return this.guard('count export fingerprints', () => this.exportPrints.count(this.pool, exportKey));
  }

  async stageExportFingerprints(exportKey: string, loadId: string, entries: readonly StagedFingerprint[]): Promise<void> {
    await this.guard('stage export fingerprints', () => this.exportPrints.stage(this.pool, exportKey, loadId, entries));
  }

  async stageUnlistedExportKeys(exportKey: string, loadId: string, live: Iterable<string>): Promise<number> {
    return this.guard('stage deleted export keys', () => this.exportPrints.stageUnlisted(this.pool, exportKey, loadId, live));
  }

  async commitExportFingerprints(exportKey: string, loadId: string): Promise<void> {
    await this.guard('commit export fingerprints', () => this.exportPrints.commit(this.pool, exportKey, loadId));
  }

  async syncs(): Promise<string[]> {
    return this.guard('list syncs', async () => {
      await this.commit(undefined);
      const s = `"${this.schemaName}"`;
      const { rows } = await this.pool.query<{ sync: string }>(
        // The ledger's syncs by skipping from one to the next along its key: DISTINCT read every row.
        `WITH RECURSIVE ledger_syncs(sync) AS (
           SELECT min(sync) FROM ${s}.ledger
           UNION ALL SELECT (SELECT min(sync) FROM ${s}.ledger WHERE sync > ledger_syncs.sync) FROM ledger_syncs WHERE ledger_syncs.sync IS NOT NULL)
         SELECT sync FROM ${s}.cursors UNION SELECT sync FROM ${s}.runs UNION SELECT sync FROM ${s}.failures
         UNION SELECT sync FROM ledger_syncs WHERE sync IS NOT NULL ORDER BY 1`,
      );
      return rows.map((r) => r.sync);
    });
  }

  async reset(sync: string, what?: ResetSelection): Promise<void> {
    const all = what === undefined;
    await this.guard('reset state', async () => {
      await this.commit(undefined);
      await inTransaction(this.pool, async (db) => {
        if (all || what.cursor === true) await db.query(`DELETE FROM ${this.cursorsTable} WHERE sync = $1`, [sync]);
        if (all || what.ledger === true) {
          await this.ledger.deleteSync(db, sync);
          await this.exportPrints.deleteExport(db, sync);
        }
        if (all || what.failures === true) await this.failureTable.purge(db, sync);
      });
    });
  }

  /** Commits buffered ledger writes (never a cursor) and closes the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.pool.end();
    }
  }

  /** Resolves once the database is reachable and migrated (rejects with the reason otherwise). */
  async opened(): Promise<this> {
    await this.ready;
    return this;
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private tables(): { ledger: PgLedger; failures: PgFailures } {
    return { ledger: this.ledger, failures: this.failureTable };
  }

  /**
   * Buffers one write. A full batch is committed in the background: the
   * caller (an acknowledgement on the push path) does not wait a round trip
   * to PostgreSQL for it, and a burst of acknowledgements arriving meanwhile
   * does not queue one commit each. Only when the database falls behind by
   * {@link BACKLOG_BATCHES} batches does the caller wait (backpressure).
   * A background commit that fails leaves its writes buffered (they leave
   * the buffer only after COMMIT) and its error is thrown by the next write.
   */
  private async enqueue(write: PendingWrite): Promise<void> {
    this.ensureOpen();
    this.buffer.add(write);
    if (this.background?.error !== undefined) {
      const { error } = this.background;
      this.background = undefined;
      throw error;
    }
    if (this.buffer.size >= this.batchSize * BACKLOG_BATCHES) await this.flush();
    else if (this.buffer.size >= this.batchSize && this.background === undefined) this.flushInBackground();
  }

  private flushInBackground(): void {
    const state: { error?: unknown } = {};
    this.background = state;
    void this.flush().then(
      () => {
        if (this.background === state) this.background = undefined;
      },
      (error: unknown) => {
        state.error = error;
      },
    );
  }

  /** One transaction: the writes buffered so far, then the cursor if given. They leave the buffer only after COMMIT. */
  private commit(move: { sync: string; cursor: CursorPosition } | undefined): Promise<void> {
    return this.exclusive(async () => {
      this.ensureOpen();
      const batch = [...this.buffer.pending()];
      if (batch.length === 0 && move === undefined) return;
      await inTransaction(this.pool, async (db: Queryable) => {
        await applyWrites(db, batch, this.tables());
        if (move !== undefined) {
          await db.query(
            `INSERT INTO ${this.cursorsTable} (sync, position, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (sync) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
            [move.sync, encodeCursor(move.sync, move.cursor), this.isoNow()],
          );
        }
      });
      this.dropCommitted(batch.length);
      // Whatever a failed background commit left behind has now landed: its error is stale.
      if (this.background?.error !== undefined) this.background = undefined;
    });
  }

  /** Removes the first `count` buffered writes (the committed batch), keeping any recorded meanwhile. */
  private dropCommitted(count: number): void {
    const later = this.buffer.pending().slice(count);
    this.buffer.clear();
    for (const w of later) this.buffer.add(w);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.serial.then(fn, fn);
    this.serial = run.catch(() => undefined);
    return run;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  private ensureOpen(): void {
    if (this.closed) throw new FerryError('FERRY_STATE_ERROR', `the state store ${this.where} is closed`, { where: this.where });
  }

  private async guard<T>(action: string, fn: () => Promise<T>): Promise<T> {
    this.ensureOpen();
    await this.ready;
    try {
      return await fn();
    } catch (cause) {
      throw pgStateError(action, this.where, cause);
    }
  }
}

function assertTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new FerryError('FERRY_STATE_ERROR', `lock lease must be a positive number of milliseconds, got ${ttlMs}`);
  }
}

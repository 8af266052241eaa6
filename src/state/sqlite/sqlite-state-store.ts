/**
 * The SQLite state store. Ledger and dead-letter writes are buffered and
 * committed in batches; a cursor moves only in `checkpoint()`, in the same
 * transaction as the acknowledgements it covers, so after any crash the
 * cursor never points past a record whose acknowledgement was lost.
 *
 * better-sqlite3 is synchronous: a method does its work at call time and
 * returns a settled promise, so call order is commit order. That is the
 * plain path, and the whole of a short run. The fast path is in
 * `threaded/`: past the first 10,000 records of a run (threaded/start.ts),
 * commits go to a commit thread in call order (ThreadedCommits) and source
 * looks to a reader thread (LedgerReader), each doing what the plain path
 * does on a connection of its own; when a thread fails, the store goes back
 * to the plain path without losing a write. See docs/state.md and
 * docs/performance.md#the-fast-paths.
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
import { ExportFingerprintTable } from './export-fingerprints.js';
import { parseServiceLimits, SERVICE_LIMITS_KEY, serviceLimitsKey } from '../service-limits.js';
import { CursorTable } from './cursors.js';
import { codeOf, messageOf } from '../../sdk/guards.js';
import { openDatabase } from './database.js';
import type { Db } from './database.js';
import { FailureTable } from './failures.js';
import { LedgerTable, LIVE_PAGE } from './ledger.js';
import { LedgerReader } from './threaded/ledger-reader.js';
import { sourceLookOf } from './source-looks.js';
import { ThreadedCommits } from './threaded/threaded-commits.js';
import { StartAfter, threadsAfterSetting } from './threaded/start.js';
import { LockTable } from './locks.js';
import { RunTable } from './runs.js';
import { WriteBuffer } from './write-buffer.js';
import type { PendingWrite } from './write-buffer.js';
import { applyWrites, type CursorMove } from './apply-writes.js';
import { encodeCursor } from './cursor-codec.js';

export interface SqliteStateStoreOptions {
  /** Buffered writes that trigger an automatic commit (which never moves a cursor). Default 500. */
  batchSize?: number;
  /** How long to wait for another process's write lock. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Milliseconds since the epoch; tests pass a fake clock to expire leases. */
  now?: () => number;
  /**
   * When the store's threads start (see LedgerReader and ThreadedCommits):
   * source looks move to the reader thread after this many ids, commits to
   * the commit thread after this many writes. By default as
   * {@link threadsAfterSetting} says; 0: at once; Infinity: never.
   */
  threadsAfter?: number;
}

export class SqliteStateStore implements StateStore {
  private readonly db: Db;
  private readonly where: string;
  private readonly batchSize: number;
  private readonly now: () => number;
  private buffer = new WriteBuffer();
  private readonly ledger: LedgerTable;
  private readonly failureTable: FailureTable;
  private readonly cursors: CursorTable;
  private readonly runTable: RunTable;
  private readonly locks: LockTable;
  private readonly exportPrints: ExportFingerprintTable;
  private closed = false;
  private readonly path: string;
  private readonly busyTimeoutMs: number;
  /** Ids looked at on this connection, counted until the reader starts. */
  private readonly looks: StartAfter;
  private reader: LedgerReader | undefined;
  /** Writes buffered, counted until the commit thread starts. */
  private readonly writes: StartAfter;
  private commits: ThreadedCommits | undefined;
  private isoAt = Number.NaN;
  private iso = '';

  /** `path` is absolute, or `:memory:`. */
  constructor(path: string, options: SqliteStateStoreOptions = {}) {
    this.where = path === ':memory:' ? 'in-memory state' : path;
    this.batchSize = Math.max(1, options.batchSize ?? 500);
    this.now = options.now ?? Date.now;
    this.path = path;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    // An in-memory database is this connection's alone: no thread can reach it.
    const threadsAfter = path === ':memory:' ? Number.POSITIVE_INFINITY : (options.threadsAfter ?? threadsAfterSetting());
    this.looks = new StartAfter(threadsAfter);
    this.writes = new StartAfter(threadsAfter);
    this.db = openDatabase(path, { busyTimeoutMs: this.busyTimeoutMs });
    try {
      this.ledger = new LedgerTable(this.db);
      this.failureTable = new FailureTable(this.db);
      this.cursors = new CursorTable(this.db);
      this.runTable = new RunTable(this.db);
      this.locks = new LockTable(this.db);
      this.exportPrints = new ExportFingerprintTable(this.db);
    } catch (cause) {
      this.db.close();
      throw this.stateError('open', cause);
    }
  }

  // ── ledger ────────────────────────────────────────────────────────────────

  async fingerprints(sync: string, remoteIds: readonly string[]): Promise<Map<string, FingerprintHit>> {
    await this.settleIfTouched(sync, remoteIds);
    return this.guard('look up fingerprints', () => {
      if (this.buffer.touches(sync, remoteIds)) this.commit(undefined);
      return this.ledger.fingerprints(sync, remoteIds);
    });
  }

  async unchangedAtSource(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): Promise<SourceLook> {
    const action = 'look up source fingerprints';
    await this.settleIfTouched(sync, remoteIds);
    const reader = this.guard(action, () => {
      if (this.buffer.touches(sync, remoteIds)) this.commit(undefined);
      return this.readerFor(remoteIds.length);
    });
    if (reader === undefined) return this.guard(action, () => this.ledger.unchangedAtSource(sync, remoteIds, sourcePrints));
    try {
      return sourceLookOf(await reader.look(sync, remoteIds, sourcePrints));
    } catch (cause) {
      throw this.stateError(action, cause);
    }
  }

  /** The reader thread, once this many ids have been looked at here; undefined until then, or when it failed. */
  private readerFor(ids: number): LedgerReader | undefined {
    if (this.reader?.usable) return this.reader;
    if (this.reader !== undefined || !this.looks.reached(ids)) return undefined;
    this.reader = new LedgerReader({ path: this.path, busyTimeoutMs: this.busyTimeoutMs });
    return this.reader;
  }

  async ledgerEntry(sync: string, remoteId: string): Promise<LedgerEntry | undefined> {
    await this.settleIfTouched(sync, [remoteId]);
    return this.guard('read the ledger', () => {
      if (this.buffer.touches(sync, [remoteId])) this.commit(undefined);
      return this.ledger.entry(sync, remoteId);
    });
  }

  /**
   * Pages of ids rather than one `iterate()` cursor: an open cursor would block
   * every write on this connection until it ends, and the mirror pass records
   * deletes (and may auto-commit them) while it walks this list.
   */
  async *liveRemoteIdPages(sync: string): AsyncIterable<readonly string[]> {
    let after: string | undefined;
    for (;;) {
      await this.settled();
      const ids = this.guard('list live records', () => {
        this.flushIfPending();
        return this.ledger.livePage(sync, after);
      });
      if (ids.length > 0) yield ids;
      if (ids.length < LIVE_PAGE) return;
      after = ids[ids.length - 1];
    }
  }

  async countLive(sync: string): Promise<number> {
    await this.settled();
    return this.guard('count live records', () => {
      this.flushIfPending();
      return this.ledger.countLive(sync);
    });
  }

  async hasLive(sync: string): Promise<boolean> {
    await this.settled();
    return this.guard('look for live records', () => {
      this.flushIfPending();
      return this.ledger.hasLive(sync);
    });
  }

  // The three writes are the hot path (one call per record): they return a
  // shared settled promise instead of allocating one per call (async method).
  recordAcknowledged(e: AcknowledgedWrite): Promise<void> {
    return writeOutcome(() => this.enqueue({ kind: 'acknowledged', write: { ...e }, at: this.isoNow() }));
  }

  recordFailure(f: FailureWrite): Promise<void> {
    return writeOutcome(() => {
      // Checked now, so a bad run id fails this call instead of every later commit.
      if (f.runId !== null && !this.guard('check the run', () => this.runTable.exists(f.runId ?? ''))) {
        throw new FerryError('FERRY_STATE_ERROR', `failure of sync "${f.sync}" names unknown run ${f.runId}`, {
          where: this.where,
          hint: 'pass the id returned by startRun(), or null',
        });
      }
      return this.enqueue({ kind: 'failure', write: { ...f }, at: this.isoNow() });
    });
  }

  recordDeleted(sync: string, remoteId: string): Promise<void> {
    return writeOutcome(() => this.enqueue({ kind: 'deleted', sync, remoteId, at: this.isoNow() }));
  }

  // ── cursors ───────────────────────────────────────────────────────────────

  async cursor(sync: string): Promise<CursorPosition | undefined> {
    return this.guard('read the cursor', () => this.cursors.get(sync));
  }

  async checkpoint(sync: string, cursor: CursorPosition | undefined): Promise<void> {
    const move = cursor === undefined ? undefined : { sync, cursor };
    const commits = this.guard('checkpoint', () => this.commitsFor(this.buffer.size));
    if (commits === undefined) return this.guard('checkpoint', () => this.commit(move));
    const encoded = this.guard('checkpoint', () => this.encodeMove(move));
    await commits.room();
    if (!commits.usable) return this.guard('checkpoint', () => this.commit(move));
    await this.send(encoded);
  }

  async flush(): Promise<void> {
    if (this.commits?.usable) {
      await this.sendBuffered();
      await this.commits.answered();
      // Every write made before this call is committed. Those made while it waited (acknowledgements go on
      // during a checkpoint) go with the next commit: committing them here, on the run's thread, would hold
      // every request in flight for the commit of up to a batch.
      if (this.commits.usable) return;
    }
    // Checked right before committing here: a commit still in flight must land before what this connection commits.
    while (this.commits !== undefined && !this.commits.idle) await this.settled();
    this.flushNow();
  }

  // ── runs ──────────────────────────────────────────────────────────────────

  async startRun(sync: string): Promise<string> {
    return this.guard('start a run', () => this.runTable.start(sync, this.now()));
  }

  async updateRun(runId: string, counts: RunCounts): Promise<void> {
    this.guard('update a run', () => this.runTable.update(runId, counts));
  }

  async finishRun(runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }): Promise<void> {
    await this.settled();
    this.guard('finish a run', () =>
      this.db.transaction(() => {
        this.applyPending();
        this.runTable.finish(runId, r, this.now());
      })(),
    );
    this.buffer.clear();
  }

  async runs(filter: { sync?: string; limit?: number } = {}): Promise<RunEntry[]> {
    return this.guard('list runs', () => this.runTable.list(filter));
  }

  async lastRun(sync: string): Promise<RunEntry | undefined> {
    return this.guard('read the last run', () => this.runTable.list({ sync, limit: 1 })[0]);
  }

  // ── dead-letter ───────────────────────────────────────────────────────────

  async failures(filter: FailureFilter = {}): Promise<FailureEntry[]> {
    await this.settled();
    return this.guard('list failures', () => {
      this.flushIfPending();
      return this.failureTable.list(filter);
    });
  }

  async failureCount(sync?: string): Promise<number> {
    await this.settled();
    return this.guard('count failures', () => {
      this.flushIfPending();
      return this.failureTable.count(sync);
    });
  }

  async removeFailure(id: number): Promise<void> {
    this.guard('remove a failure', () => this.failureTable.remove(id));
  }

  async purgeFailures(sync?: string): Promise<number> {
    await this.settled();
    return this.guard('purge failures', () => {
      this.flushIfPending();
      return this.failureTable.purge(sync);
    });
  }

  // ── locks ─────────────────────────────────────────────────────────────────

  async acquireLock(sync: string, owner: string, ttlMs: number, options: { takeOverFrom?: string } = {}): Promise<boolean> {
    assertTtl(ttlMs);
    return this.guard('acquire the lock', () => {
      const now = this.now();
      const abandon = () => this.runTable.abandon(sync, now);
      return this.locks.acquire(sync, owner, ttlMs, now, abandon, options.takeOverFrom) !== 'held-by-other';
    });
  }

  async renewLock(sync: string, owner: string, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    return this.guard('renew the lock', () => this.locks.renew(sync, owner, ttlMs, this.now()));
  }

  async releaseLock(sync: string, owner: string): Promise<void> {
    this.guard('release the lock', () => this.locks.release(sync, owner));
  }

  async lockHolder(sync: string): Promise<LockHolder | undefined> {
    return this.guard('read the lock', () => this.locks.holder(sync));
  }

  // ── admin ─────────────────────────────────────────────────────────────────

  async serviceLimits(): Promise<ServiceLimits[]> {
    await this.settled();
    return this.guard('read the service limits', () =>
      this.db
        .prepare<[number, string], { value: string }>('SELECT value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key')
        .all(SERVICE_LIMITS_KEY.length, SERVICE_LIMITS_KEY)
        .flatMap((row) => parseServiceLimits(row.value) ?? []),
    );
  }

  async recordServiceLimits(limits: ServiceLimits): Promise<void> {
    await this.settled();
    this.guard('store the service limits', () => {
      this.db
        .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(serviceLimitsKey(limits.service), JSON.stringify(limits));
    });
  }

  async exportLayout(exportKey: string): Promise<ExportConventions | undefined> {
    await this.settled();
    return this.guard('read the export layout', () =>
      parseExportLayout(this.db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(exportLayoutKey(exportKey))),
    );
  }

  async recordExportLayout(exportKey: string, layout: ExportConventions): Promise<void> {
    await this.settled();
    this.guard('store the export layout', () => {
      this.db
        .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(exportLayoutKey(exportKey), JSON.stringify(layout));
    });
  }

  // ── export fingerprints ───────────────────────────────────────────────────

  async exportFingerprints(exportKey: string, keys: readonly string[]): Promise<Map<string, string>> {
    await this.settled();
    return this.guard('read export fingerprints', () => this.exportPrints.lookup(exportKey, keys));
  }

  async countExportFingerprints(exportKey: string): Promise<number> {
    await this.settled();
    return this.guard('count export fingerprints', () => this.exportPrints.count(exportKey));
  }

  async stageExportFingerprints(exportKey: string, loadId: string, entries: readonly StagedFingerprint[]): Promise<void> {
    await this.settled();
    this.guard('stage export fingerprints', () => this.exportPrints.stage(exportKey, loadId, entries));
  }

  async stageUnlistedExportKeys(exportKey: string, loadId: string, live: Iterable<string>): Promise<number> {
    await this.settled();
    return this.guard('stage deleted export keys', () => this.exportPrints.stageUnlisted(exportKey, loadId, live));
  }

  async commitExportFingerprints(exportKey: string, loadId: string): Promise<void> {
    await this.settled();
    this.guard('commit export fingerprints', () => this.exportPrints.commit(exportKey, loadId));
  }

  async syncs(): Promise<string[]> {
    await this.settled();
    return this.guard('list syncs', () => {
      this.flushIfPending();
      return this.db
        .prepare<[], string>(
          // The ledger's syncs by skipping from one to the next along its key: DISTINCT read every row (seconds at 10M).
          `WITH RECURSIVE ledger_syncs(sync) AS (
             SELECT min(sync) FROM ledger
             UNION ALL SELECT (SELECT min(sync) FROM ledger WHERE sync > ledger_syncs.sync) FROM ledger_syncs WHERE ledger_syncs.sync IS NOT NULL)
           SELECT sync FROM cursors UNION SELECT sync FROM runs UNION SELECT sync FROM failures
           UNION SELECT sync FROM ledger_syncs WHERE sync IS NOT NULL ORDER BY 1`,
        )
        .pluck()
        .all();
    });
  }

  async reset(sync: string, what?: ResetSelection): Promise<void> {
    const all = what === undefined;
    await this.settled();
    this.guard('reset state', () => {
      this.flushIfPending();
      this.db.transaction(() => {
        if (all || what.cursor === true) this.cursors.delete(sync);
        if (all || what.ledger === true) {
          this.ledger.deleteSync(sync);
          this.exportPrints.deleteExport(sync);
        }
        if (all || what.failures === true) this.failureTable.purge(sync);
      })();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.settled();
      this.flushNow();
    } finally {
      this.closed = true;
      // The threads' connections first: the last one to close copies the WAL back into the file.
      await this.commits?.close();
      await this.reader?.close();
      this.db.close();
    }
  }

  // ── internals ─────────────────────────────────────────────────────────────

  /** Buffers a write; a full buffer is committed (on the commit thread, once it runs: then a promise while it has no room). */
  private enqueue(write: PendingWrite): Promise<void> | undefined {
    this.ensureOpen();
    this.buffer.add(write);
    if (this.buffer.size < this.batchSize) return undefined;
    const commits = this.commitsFor(this.buffer.size);
    if (commits === undefined) {
      this.flushNow();
      return undefined;
    }
    if (!commits.full) {
      void this.send(undefined);
      return undefined;
    }
    return commits.room().then(() => {
      // Another write may have sent the buffer meanwhile, or the thread failed (and the store commits itself).
      if (this.buffer.size < this.batchSize) return;
      if (this.commits?.usable) void this.send(undefined);
      else this.flushNow();
    });
  }

  /** The commit thread, once this many writes have been buffered; undefined until then, or after it failed. */
  private commitsFor(writes: number): ThreadedCommits | undefined {
    if (this.commits?.usable) return this.commits;
    if (this.commits !== undefined || !this.writes.reached(writes)) return undefined;
    this.commits = new ThreadedCommits({ path: this.path, busyTimeoutMs: this.busyTimeoutMs }, (returned) => this.takeBack(returned));
    return this.commits;
  }

  /** Hands the buffer (and the cursor move) to the commit thread; resolves once committed. */
  private send(move: CursorMove | undefined): Promise<void> {
    const writes = this.buffer;
    this.buffer = new WriteBuffer();
    const committed = this.commits!.send(writes, move).catch((cause: unknown) => {
      throw this.stateError('commit buffered writes', cause);
    });
    // A commit nobody waits for (one a full buffer sent) fails quietly: its writes come back (takeBack).
    committed.catch(() => undefined);
    return committed;
  }

  /**
   * Hands the buffer to the commit thread, when it runs, and waits for the
   * commit. {@link flush} had committed it on the store's own connection:
   * a run over a source without a cursor (a CSV file) checkpoints with
   * flush, so each of its checkpoints held the run's thread for a commit of
   * 500 writes. What the thread could not commit comes back to the buffer
   * ({@link takeBack}), and flush commits it here.
   */
  private async sendBuffered(): Promise<void> {
    if (this.buffer.size === 0 || !this.commits?.usable) return;
    await this.commits.room();
    if (this.buffer.size === 0 || !this.commits.usable) return;
    await this.send(undefined).catch(() => undefined);
  }

  /** After the commit thread failed: the writes it did not commit go before the ones buffered since. */
  private takeBack(returned: WriteBuffer[]): void {
    const buffer = new WriteBuffer();
    for (const writes of [...returned, this.buffer]) for (const write of writes.pending()) buffer.add(write);
    this.buffer = buffer;
  }

  /** Waits until the commit thread has answered every commit sent (the store's connection then sees them). */
  private async settled(): Promise<void> {
    await this.commits?.settled();
  }

  /**
   * {@link settled}, when a write of one of these records waits in a commit
   * in flight, or in the buffer (which the read then commits on the store's
   * connection: no commit may still be in flight then, or a record's later
   * write could land before its earlier one).
   */
  private async settleIfTouched(sync: string, remoteIds: readonly string[]): Promise<void> {
    const commits = this.commits;
    if (commits === undefined || commits.idle) return;
    if (commits.touches(sync, remoteIds) || this.buffer.touches(sync, remoteIds)) await commits.settled();
  }

  private flushNow(): void {
    this.guard('commit buffered writes', () => this.commit(undefined));
  }

  private flushIfPending(): void {
    if (this.buffer.size > 0) this.flushNow();
  }

  /**
   * One transaction on the store's own connection: every buffered write, then
   * the cursor if given. The buffer is cleared only after COMMIT. Callers
   * have waited for the commit thread first (see settled), so no write lands
   * before one sent earlier.
   */
  private commit(move: { sync: string; cursor: CursorPosition } | undefined): void {
    this.ensureOpen();
    if (this.buffer.size === 0 && move === undefined) return;
    const encoded = this.encodeMove(move);
    this.db.transaction(() => this.applyPending(encoded))();
    this.buffer.clear();
  }

  private encodeMove(move: { sync: string; cursor: CursorPosition } | undefined): CursorMove | undefined {
    return move === undefined ? undefined : { sync: move.sync, position: encodeCursor(move.sync, move.cursor), at: this.isoNow() };
  }

  private applyPending(move?: CursorMove): void {
    applyWrites({ ledger: this.ledger, failures: this.failureTable, cursors: this.cursors }, this.buffer.pending(), move);
  }

  /** The ISO time, rebuilt only when the millisecond changed: acknowledgements arrive many per millisecond. */
  private isoNow(): string {
    const now = this.now();
    if (now !== this.isoAt) {
      this.isoAt = now;
      this.iso = new Date(now).toISOString();
    }
    return this.iso;
  }

  private ensureOpen(): void {
    if (this.closed) throw new FerryError('FERRY_STATE_ERROR', `the state store ${this.where} is closed`, { where: this.where });
  }

  private guard<T>(action: string, fn: () => T): T {
    this.ensureOpen();
    try {
      return fn();
    } catch (cause) {
      throw this.stateError(action, cause);
    }
  }

  private stateError(action: string, cause: unknown): FerryError {
    if (cause instanceof FerryError) return cause;
    const busy = codeOf(cause) === 'SQLITE_BUSY';
    return new FerryError('FERRY_STATE_ERROR', `cannot ${action} in the state database ${this.where}: ${messageOf(cause)}`, {
      where: this.where,
      cause,
      hint: busy
        ? 'another process kept the state database locked; retry, or check for a stuck ferry process'
        : 'check the disk (space, permissions); if the file is damaged, move it aside and ferry starts a fresh one',
    });
  }
}

const DONE: Promise<void> = Promise.resolve();

/** Runs a write and reports its outcome as a promise, without allocating one when it finished at once. */
function writeOutcome(write: () => Promise<void> | undefined | void): Promise<void> {
  try {
    return write() ?? DONE;
  } catch (error) {
    return Promise.reject(error);
  }
}

function assertTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new FerryError('FERRY_STATE_ERROR', `lock lease must be a positive number of milliseconds, got ${ttlMs}`);
  }
}

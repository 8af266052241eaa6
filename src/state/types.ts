/**
 * The state store's contract. The runner talks only to {@link StateStore};
 * SQLite is the default backend and Postgres (shared state) can slot in
 * behind the same interface.
 */
import type { ExportLayoutStore } from './export-layouts.js';
import type { CursorPosition } from '../sdk/types.js';

export type { CursorPosition };

/** What the service last acknowledged (or refused) for one record of a sync. */
export interface LedgerEntry {
  sync: string;
  remoteId: string;
  /**
   * Hash of the mapped request body. For `pushed`: the body the service
   * acknowledged. For `failed`: the body that was refused (when the runner
   * passed one), else the previous fingerprint. Empty string when unknown.
   */
  fingerprint: string;
  /** The service's id for the record, from the last acknowledgement. */
  recordId: string | null;
  status: 'pushed' | 'failed' | 'deleted';
  /** Failed attempts since the last acknowledgement (0 after a success). */
  attempts: number;
  lastError: string | null;
  /** Where the record came from, formatted by the runner (file:line, table/key). */
  origin: string | null;
  updatedAt: string;
}

/** A dead-lettered record: mapped body, the service's answer, and where it came from. */
/** Which dead-letter entries {@link StateStore.failures} lists. */
export interface FailureFilter {
  sync?: string;
  limit?: number;
  /** Only entries with a smaller id (older): the next page after the last entry of the previous one. */
  beforeId?: number;
}

export interface FailureEntry {
  id: number;
  sync: string;
  runId: string | null;
  remoteId: string | null;
  origin: string | null;
  /** `invalid`: refused by ferry's own validation; `rejected`: refused by the service. */
  kind: 'invalid' | 'rejected';
  reason: string;
  /** HTTP status of the refusal, when the service answered. */
  status: number | null;
  errorBody: unknown;
  /** The mapped request body (never contains the API key, which travels only in headers). */
  body: unknown;
  sourceRecord: unknown;
  createdAt: string;
  /** How many times this record has failed while its dead-letter entry stayed open. */
  attempts: number;
}

export interface RunCounts {
  read: number;
  pushed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  deleted: number;
  skipped: number;
  /** Records not pushed because an earlier record of the same read had their id (the first wins); absent in older runs. */
  duplicates?: number;
}

export type RunStatus = 'running' | 'succeeded' | 'partial' | 'failed' | 'aborted';

export interface RunEntry {
  runId: string;
  sync: string;
  startedAt: string;
  finishedAt: string | null;
  status: RunStatus;
  counts: RunCounts;
  durationMs: number | null;
  error: string | null;
  /** The sync's committed cursor when the run finished. */
  cursor: CursorPosition | null;
}

export interface AcknowledgedWrite {
  sync: string;
  remoteId: string;
  fingerprint: string;
  recordId: string;
  origin?: string;
  /**
   * Hash of the source record plus the mapping's identity, when the runner
   * computed one; replaces the stored one (omitted: cleared), so it can only
   * ever vouch for the body acknowledged with it.
   */
  sourceFingerprint?: string;
}

export type FailureWrite = Omit<FailureEntry, 'id' | 'createdAt' | 'attempts'> & {
  fingerprint?: string;
  /** The dead-letter entry this failure repeats (`failures retry`): it is replaced, its attempts carried over. */
  replaces?: number;
};

/** Which parts of a sync's state {@link StateStore.reset} clears; omitted = all three. */
export interface ResetSelection {
  cursor?: boolean;
  ledger?: boolean;
  failures?: boolean;
}

/** Who holds a sync's lock, as {@link StateStore.lockHolder} reports it. */
export interface LockHolder {
  /** The id the holder passed to `acquireLock` (opaque to the store). */
  owner: string;
  acquiredAt: string;
  /** When the lease lapses unless renewed, in milliseconds since the epoch. */
  expiresMs: number;
}

/**
 * The state store's contract. Every method returns a promise so that a
 * networked backend (PostgreSQL) can implement it; the SQLite backend does its
 * work synchronously and returns settled promises.
 *
 * Ordering: writes (`recordAcknowledged`, `recordFailure`, `recordDeleted`) are
 * buffered in the order they are called, and `checkpoint`/`flush` commit every
 * write whose call was made before theirs, even if the caller has not awaited
 * it yet. Reads see every write called before them.
 *
 * The behaviour every backend must show is written down as a conformance
 * suite: test/support/state-store-conformance.ts.
 */
export interface StateStore extends ExportLayoutStore {
  // ledger
  /** Batched lookup of the ledger for many remote ids (pending writes are committed first when they touch these ids). */
  fingerprints(sync: string, remoteIds: readonly string[]): Promise<Map<string, FingerprintHit>>;
  /**
   * The no-op re-run's look-up: for each pair (`remoteIds[i]`,
   * `sourcePrints[i]`), whether the ledger holds that id as pushed with
   * exactly that source fingerprint. Only the other pairs' entries come back
   * as objects, so a batch of unchanged records costs one query and no
   * per-record allocation. Pending writes are committed first when they
   * touch these ids, as for {@link fingerprints}.
   */
  unchangedAtSource(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): Promise<SourceLook>;
  ledgerEntry(sync: string, remoteId: string): Promise<LedgerEntry | undefined>;
  /**
   * Remote ids with status `pushed`, in ascending order, page by page so memory
   * stays flat (for `deletes: mirror`). Pages rather than single ids: one
   * promise per page, not per id. Writes made while iterating must not fail.
   */
  liveRemoteIdPages(sync: string): AsyncIterable<readonly string[]>;
  countLive(sync: string): Promise<number>;
  /**
   * Whether any record of the sync is in the ledger as pushed: a look at one
   * index entry, where {@link countLive} walks them all. A run that finds
   * none knows, before asking per batch, that nothing it reads can be
   * unchanged or an update.
   */
  hasLive(sync: string): Promise<boolean>;

  // writes: buffered, committed in batched transactions
  recordAcknowledged(e: AcknowledgedWrite): Promise<void>;
  recordFailure(f: FailureWrite): Promise<void>;
  recordDeleted(sync: string, remoteId: string): Promise<void>;

  // cursors
  cursor(sync: string): Promise<CursorPosition | undefined>;
  /**
   * Commits every buffered ledger write and, in the same transaction, moves the
   * sync's cursor to `cursor` (`undefined` leaves the cursor where it is).
   */
  checkpoint(sync: string, cursor: CursorPosition | undefined): Promise<void>;
  /** Commits buffered writes without moving any cursor. */
  flush(): Promise<void>;

  // runs
  startRun(sync: string): Promise<string>;
  updateRun(runId: string, counts: RunCounts): Promise<void>;
  /** Commits buffered writes, then marks the run finished and snapshots the sync's cursor into it. */
  finishRun(runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }): Promise<void>;
  /** Newest first. */
  runs(filter?: { sync?: string; limit?: number }): Promise<RunEntry[]>;
  lastRun(sync: string): Promise<RunEntry | undefined>;

  // dead-letter
  /** Newest first; `beforeId`: only entries older than that one (pages of a long dead-letter, by id). */
  failures(filter?: FailureFilter): Promise<FailureEntry[]>;
  failureCount(sync?: string): Promise<number>;
  removeFailure(id: number): Promise<void>;
  purgeFailures(sync?: string): Promise<number>;

  // locks
  /**
   * Takes the sync's lease for `owner` when it is free, expired, already
   * `owner`'s, or held by `options.takeOverFrom` (the caller has proven that
   * holder dead). Taking over someone else's lease marks the sync's runs still
   * `running` as `aborted`, in the same transaction. False when another owner
   * holds a live lease.
   */
  acquireLock(sync: string, owner: string, ttlMs: number, options?: { takeOverFrom?: string }): Promise<boolean>;
  /** Extends the lease if `owner` still holds it (even if it lapsed, as long as nobody took it). */
  renewLock(sync: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLock(sync: string, owner: string): Promise<void>;
  /** Who holds the sync's lock (expired leases included), without taking it. */
  lockHolder(sync: string): Promise<LockHolder | undefined>;

  // what runs learnt of the service
  /** The limits the last run that learnt any found for each service, by service (see {@link ServiceLimits}). */
  serviceLimits(): Promise<ServiceLimits[]>;
  /** Keep what a run learnt of `limits.service` (replacing what an earlier run learnt of it). */
  recordServiceLimits(limits: ServiceLimits): Promise<void>;

  // admin
  syncs(): Promise<string[]>;
  reset(sync: string, what?: ResetSelection): Promise<void>;
  /** Commits buffered ledger writes (never a cursor) and closes the store. */
  close(): Promise<void>;
}

/**
 * The concurrency and request rate a run's push settled on against a
 * service, and why neither was higher: `ferry status` shows it, and the next
 * run against the same service starts near it instead of from the cold
 * start (docs/sink.md).
 */
export interface ServiceLimits {
  /** The service's base URL (`embedded` for the emulator). */
  service: string;
  concurrency: number;
  concurrencyReason: string;
  /** Requests per second just under the service's 429s, when it showed a limit. */
  rate?: number;
  rateReason: string;
  /** ISO time the run that learnt it ended. */
  learntAt: string;
}

/** One ledger hit of {@link StateStore.fingerprints}. */
export interface FingerprintHit {
  fingerprint: string;
  status: LedgerEntry['status'];
  recordId: string | null;
  /** As last acknowledged with the body; absent when none was given (the runner then maps the record). Every backend keeps it. */
  sourceFingerprint?: string;
}

/** What {@link StateStore.unchangedAtSource} found for a batch of (remote id, source fingerprint) pairs. */
export interface SourceLook {
  /** Per pair, by index: 1 when the ledger holds the id as pushed with exactly this source fingerprint, else 0. */
  unchanged: Uint8Array;
  /** The ledger entries of the ids of the other pairs, as {@link StateStore.fingerprints} gives them (an id the ledger lacks is absent). */
  others: Map<string, FingerprintHit>;
}

/** A fresh, all-zero set of run counts. */
export function emptyCounts(): RunCounts {
  return { read: 0, pushed: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 0, duplicates: 0 };
}

/** All-zero run counts, frozen; spread it (`{ ...RUN_COUNTS_ZERO }`) to get a mutable copy. */
export const RUN_COUNTS_ZERO: Readonly<RunCounts> = Object.freeze(emptyCounts());

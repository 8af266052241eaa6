/**
 * The state store's narrow ports, one per concern. Both backends (SQLite,
 * PostgreSQL) implement every one; {@link StateStore} (types.ts) is their
 * composite. A caller that needs one concern takes its port (a lease takes
 * {@link LockStore}, the dead-letter pages take {@link DeadLetterStore}), so
 * what it can touch is in its signature, and a test double implements a
 * handful of methods rather than thirty.
 *
 * A new kind of state is a new port (as export-layouts.ts's
 * `ExportLayoutStore`, the layout an export writes in, and
 * export-fingerprints.ts's `ExportFingerprintStore`), added to the composite and to both backends, with its own part of the
 * conformance suite (test/support/state-store-conformance.ts).
 *
 * Ordering across ports: the buffered writes of {@link LedgerStore} and
 * {@link DeadLetterStore} are committed by {@link CursorStore.checkpoint} and
 * {@link CursorStore.flush} (and {@link RunStore.finishRun},
 * {@link StateAdmin.close}) in the order they were called.
 */
import type { CursorPosition } from '../sdk/types.js';
import type { ExportFingerprintStore } from './export-fingerprints.js';
import type { ExportLayoutStore } from './export-layouts.js';
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
} from './types.js';

/** What the service last acknowledged per record: the diff's view, the mirror's list, and the buffered writes that change it. */
export interface LedgerStore {
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
  /** Buffered: the record as the service acknowledged it (and its open dead-letter entry resolved). */
  recordAcknowledged(e: AcknowledgedWrite): Promise<void>;
  /** Buffered: the record deleted at the service (`deletes: mirror`, a source's delete). */
  recordDeleted(sync: string, remoteId: string): Promise<void>;
}

/** Records the service or ferry refused, kept to be listed and retried. */
export interface DeadLetterStore {
  /** Buffered: the refusal, on the ledger (when it names a remote id) and in the dead-letter, replacing the record's open entry. */
  recordFailure(f: FailureWrite): Promise<void>;
  /** Newest first; `beforeId`: only entries older than that one (pages of a long dead-letter, by id). */
  failures(filter?: FailureFilter): Promise<FailureEntry[]>;
  failureCount(sync?: string): Promise<number>;
  removeFailure(id: number): Promise<void>;
  purgeFailures(sync?: string): Promise<number>;
}

/** Where each sync's read resumes, moved only together with the writes it covers. */
export interface CursorStore {
  cursor(sync: string): Promise<CursorPosition | undefined>;
  /**
   * Commits every buffered ledger write and, in the same transaction, moves the
   * sync's cursor to `cursor` (`undefined` leaves the cursor where it is).
   */
  checkpoint(sync: string, cursor: CursorPosition | undefined): Promise<void>;
  /** Commits buffered writes without moving any cursor. */
  flush(): Promise<void>;
}

/** The history of runs: one entry per run of a sync, with its counts. */
export interface RunStore {
  startRun(sync: string): Promise<string>;
  updateRun(runId: string, counts: RunCounts): Promise<void>;
  /** Commits buffered writes, then marks the run finished and snapshots the sync's cursor into it. */
  finishRun(runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }): Promise<void>;
  /** Newest first. */
  runs(filter?: { sync?: string; limit?: number }): Promise<RunEntry[]>;
  lastRun(sync: string): Promise<RunEntry | undefined>;
}

/** One holder per sync (or export) at a time: leases with a time to live. */
export interface LockStore {
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
}

/** What runs learnt of each service (the push's concurrency and rate), for the next run to start near. */
export interface ServiceLimitStore {
  /** The limits the last run that learnt any found for each service, by service (see {@link ServiceLimits}). */
  serviceLimits(): Promise<ServiceLimits[]>;
  /** Keep what a run learnt of `limits.service` (replacing what an earlier run learnt of it). */
  recordServiceLimits(limits: ServiceLimits): Promise<void>;
}

/** The store as a whole: which syncs have state, clearing a sync's, closing. */
export interface StateAdmin {
  syncs(): Promise<string[]>;
  reset(sync: string, what?: ResetSelection): Promise<void>;
  /** Commits buffered ledger writes (never a cursor) and closes the store. */
  close(): Promise<void>;
}

/** The ports by name, with their methods: what the conformance suite runs one part of per port. */
export const STATE_PORTS = {
  ledger: ['fingerprints', 'unchangedAtSource', 'ledgerEntry', 'liveRemoteIdPages', 'countLive', 'hasLive', 'recordAcknowledged', 'recordDeleted'],
  deadLetter: ['recordFailure', 'failures', 'failureCount', 'removeFailure', 'purgeFailures'],
  cursors: ['cursor', 'checkpoint', 'flush'],
  runs: ['startRun', 'updateRun', 'finishRun', 'runs', 'lastRun'],
  locks: ['acquireLock', 'renewLock', 'releaseLock', 'lockHolder'],
  serviceLimits: ['serviceLimits', 'recordServiceLimits'],
  exportLayouts: ['exportLayout', 'recordExportLayout'],
  exportFingerprints: ['exportFingerprints', 'countExportFingerprints', 'stageExportFingerprints', 'stageUnlistedExportKeys', 'commitExportFingerprints'],
  admin: ['syncs', 'reset', 'close'],
} as const satisfies {
  ledger: readonly (keyof LedgerStore)[];
  deadLetter: readonly (keyof DeadLetterStore)[];
  cursors: readonly (keyof CursorStore)[];
  runs: readonly (keyof RunStore)[];
  locks: readonly (keyof LockStore)[];
  serviceLimits: readonly (keyof ServiceLimitStore)[];
  exportLayouts: readonly (keyof ExportLayoutStore)[];
  exportFingerprints: readonly (keyof ExportFingerprintStore)[];
  admin: readonly (keyof StateAdmin)[];
};

export type StatePort = keyof typeof STATE_PORTS;

/** The composite's methods no port lists: `never` (the conformance suite checks it at compile time). */
export type UnlistedStateMethods = Exclude<keyof StateStore, (typeof STATE_PORTS)[StatePort][number]>;

/**
 * The state store's contract. The runner talks only to {@link StateStore};
 * SQLite is the default backend and Postgres (shared state) can slot in
 * behind the same interface.
 */
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

export interface StateStore {
  // ledger
  /** Batched lookup of the ledger for many remote ids (pending writes are committed first when they touch these ids). */
  fingerprints(
    sync: string,
    remoteIds: readonly string[],
  ): Map<string, { fingerprint: string; status: LedgerEntry['status']; recordId: string | null }>;
  ledgerEntry(sync: string, remoteId: string): LedgerEntry | undefined;
  /** Remote ids with status `pushed`, read page by page so memory stays flat (for `deletes: mirror`). */
  liveRemoteIds(sync: string): Iterable<string>;
  countLive(sync: string): number;

  // writes: buffered, committed in batched transactions
  recordAcknowledged(e: AcknowledgedWrite): void;
  recordFailure(f: FailureWrite): void;
  recordDeleted(sync: string, remoteId: string): void;

  // cursors
  cursor(sync: string): CursorPosition | undefined;
  /**
   * Commits every buffered ledger write and, in the same transaction, moves the
   * sync's cursor to `cursor` (`undefined` leaves the cursor where it is).
   */
  checkpoint(sync: string, cursor: CursorPosition | undefined): void;
  /** Commits buffered writes without moving any cursor. */
  flush(): void;

  // runs
  startRun(sync: string): string;
  updateRun(runId: string, counts: RunCounts): void;
  finishRun(runId: string, r: { status: RunStatus; counts: RunCounts; error?: string | null }): void;
  /** Newest first. */
  runs(filter?: { sync?: string; limit?: number }): RunEntry[];
  lastRun(sync: string): RunEntry | undefined;

  // dead-letter
  /** Newest first. */
  failures(filter?: { sync?: string; limit?: number }): FailureEntry[];
  failureCount(sync?: string): number;
  removeFailure(id: number): void;
  purgeFailures(sync?: string): number;

  // locks
  acquireLock(sync: string, owner: string, ttlMs: number): boolean;
  renewLock(sync: string, owner: string, ttlMs: number): boolean;
  releaseLock(sync: string, owner: string): void;

  // admin
  syncs(): string[];
  reset(sync: string, what?: ResetSelection): void;
  /** Commits buffered ledger writes (never a cursor) and closes the store. */
  close(): void;
}

/** A fresh, all-zero set of run counts. */
export function emptyCounts(): RunCounts {
  return { read: 0, pushed: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 0, duplicates: 0 };
}

/** All-zero run counts, frozen; spread it (`{ ...RUN_COUNTS_ZERO }`) to get a mutable copy. */
export const RUN_COUNTS_ZERO: Readonly<RunCounts> = Object.freeze(emptyCounts());

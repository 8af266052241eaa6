/**
 * The state store's contract: the records it keeps, and {@link StateStore},
 * the composite of the narrow ports in ports.ts (ledger, dead-letter,
 * cursors, runs, locks, learnt service limits, admin; and export-layouts.ts's
 * export layouts). SQLite is the default
 * backend and PostgreSQL (shared state) implements the same ports.
 */
import type { CursorPosition } from '../sdk/types.js';
import type { ExportFingerprintStore } from './export-fingerprints.js';
import type { ExportLayoutStore } from './export-layouts.js';
import type { CursorStore, DeadLetterStore, LedgerStore, LockStore, RunStore, ServiceLimitStore, StateAdmin } from './ports.js';

export type { CursorPosition };
export type { CursorStore, DeadLetterStore, LedgerStore, LockStore, RunStore, ServiceLimitStore, StateAdmin } from './ports.js';
export { STATE_PORTS, type StatePort, type UnlistedStateMethods } from './ports.js';

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
/** Which dead-letter entries {@link DeadLetterStore.failures} lists. */
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
  /**
   * Records a source yielded after changing them (a ragged CSV row, bytes
   * replaced by U+FFFD): they are counted once among read, pushed or failed
   * like any record, and here as well; absent in older runs and when none.
   */
  repaired?: number;
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

/** Which parts of a sync's state {@link StateAdmin.reset} clears; omitted = all three. */
export interface ResetSelection {
  cursor?: boolean;
  ledger?: boolean;
  failures?: boolean;
}

/** Who holds a sync's lock, as {@link LockStore.lockHolder} reports it. */
export interface LockHolder {
  /** The id the holder passed to `acquireLock` (opaque to the store). */
  owner: string;
  acquiredAt: string;
  /** When the lease lapses unless renewed, in milliseconds since the epoch. */
  expiresMs: number;
}

/**
 * The whole state store: every port (src/state/ports.ts) in one object, for
 * the callers that need them all (opening a project's state, a sync's run,
 * the wrappers that decorate a store). A caller that needs one concern takes
 * its narrow port instead. Every method returns a promise so that a
 * networked backend (PostgreSQL) can implement it; the SQLite backend does
 * its work synchronously and returns settled promises.
 *
 * Ordering, across the ports: writes (`recordAcknowledged`, `recordFailure`,
 * `recordDeleted`) are buffered in the order they are called, and
 * `checkpoint`/`flush` commit every write whose call was made before theirs,
 * even if the caller has not awaited it yet. Reads see every write called
 * before them.
 *
 * The behaviour every backend must show is written down as a conformance
 * suite, one part per port: test/support/state-store-conformance.ts.
 */
export interface StateStore extends LedgerStore, DeadLetterStore, CursorStore, RunStore, LockStore, ServiceLimitStore, ExportLayoutStore, ExportFingerprintStore, StateAdmin {}

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

/** One ledger hit of {@link LedgerStore.fingerprints}. */
export interface FingerprintHit {
  fingerprint: string;
  status: LedgerEntry['status'];
  recordId: string | null;
  /** As last acknowledged with the body; absent when none was given (the runner then maps the record). Every backend keeps it. */
  sourceFingerprint?: string;
}

/** What {@link LedgerStore.unchangedAtSource} found for a batch of (remote id, source fingerprint) pairs. */
export interface SourceLook {
  /** Per pair, by index: 1 when the ledger holds the id as pushed with exactly this source fingerprint, else 0. */
  unchanged: Uint8Array;
  /** The ledger entries of the ids of the other pairs, as {@link LedgerStore.fingerprints} gives them (an id the ledger lacks is absent). */
  others: Map<string, FingerprintHit>;
}

/** A fresh, all-zero set of run counts. */
export function emptyCounts(): RunCounts {
  return { read: 0, pushed: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 0, duplicates: 0 };
}

/** All-zero run counts, frozen; spread it (`{ ...RUN_COUNTS_ZERO }`) to get a mutable copy. */
export const RUN_COUNTS_ZERO: Readonly<RunCounts> = Object.freeze(emptyCounts());

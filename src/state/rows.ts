/**
 * The rows both state backends store for the ledger and the dead-letter, and
 * their conversion to the entries of src/state/types.ts: one schema, one
 * mapping, whichever database holds them.
 */
import { fromJson } from './sqlite/json.js';
import type { FailureEntry, LedgerEntry } from './types.js';

export interface LedgerRow {
  sync: string;
  remote_id: string;
  fingerprint: string;
  record_id: string | null;
  status: LedgerEntry['status'];
  attempts: number;
  last_error: string | null;
  origin: string | null;
  updated_at: string;
  source_fingerprint: string | null;
}

export interface FailureRow {
  /** SQLite returns the integer id as a number, PostgreSQL's bigserial as a string. */
  id: number | string;
  sync: string;
  run_id: string | null;
  remote_id: string | null;
  origin: string | null;
  kind: FailureEntry['kind'];
  reason: string;
  status: number | null;
  error_body: string | null;
  body: string | null;
  source_record: string | null;
  attempts: number;
  created_at: string;
}

export function ledgerEntryOf(row: LedgerRow): LedgerEntry {
  return {
    sync: row.sync,
    remoteId: row.remote_id,
    fingerprint: row.fingerprint,
    recordId: row.record_id,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    origin: row.origin,
    updatedAt: row.updated_at,
  };
}

export function failureEntryOf(row: FailureRow): FailureEntry {
  return {
    id: Number(row.id),
    sync: row.sync,
    runId: row.run_id,
    remoteId: row.remote_id,
    origin: row.origin,
    kind: row.kind,
    reason: row.reason,
    status: row.status,
    errorBody: fromJson(row.error_body),
    body: fromJson(row.body),
    sourceRecord: fromJson(row.source_record),
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}

/** The messages between the ledger reader (ledger-reader.ts) and its thread (ledger-reader-thread.ts). */
import type { SourceLookColumns } from './source-looks.js';

/** What the thread is started with. */
export interface LedgerReaderInput {
  /** The state file (absolute); the store has opened and migrated it. */
  path: string;
  busyTimeoutMs: number;
}

/** One batch's source look. */
export interface LookRequest {
  id: number;
  sync: string;
  remoteIds: readonly string[];
  sourcePrints: readonly string[];
}

/** Closes the connection; the thread then ends. */
export interface CloseRequest {
  close: true;
}

export type LookReply = ({ id: number } & SourceLookColumns) | { id: number; error: string };

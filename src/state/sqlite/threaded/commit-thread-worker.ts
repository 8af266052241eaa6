/** The commit thread (see threaded-commits.ts): each request one transaction on a connection of its own, with the writes the store's own commit applies (apply-writes.ts). */
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { applyWrites } from '../apply-writes.js';
import { unpackWrites } from './commit-message.js';
import { CursorTable } from '../cursors.js';
import { configureConnection } from '../database.js';
import { FailureTable } from '../failures.js';
import { LedgerTable } from '../ledger.js';
import { serveRequests, type StateThreadInput } from './request-thread.js';
import type { CommitRequest } from './threaded-commits.js';

const { path, busyTimeoutMs } = workerData as StateThreadInput;
const db = new Database(path, { fileMustExist: true });
configureConnection(db, busyTimeoutMs);
const tables = { ledger: new LedgerTable(db), failures: new FailureTable(db), cursors: new CursorTable(db) };
/** Set by the first commit that fails: no later one may land before it. */
let failed: string | undefined;

serveRequests<CommitRequest, null>(
  ({ writes, move }) => {
    if (failed !== undefined) throw new Error(`not committed after an earlier commit failed: ${failed}`);
    try {
      db.transaction(() => applyWrites(tables, unpackWrites(writes), move))();
    } catch (error) {
      failed = error instanceof Error ? error.message : String(error);
      throw error;
    }
    return { answer: null };
  },
  () => db.close(),
);

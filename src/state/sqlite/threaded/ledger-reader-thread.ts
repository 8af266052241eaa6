/**
 * The ledger reader's thread: answers source looks on a connection of its
 * own, one request at a time, in the order they came.
 */
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { configureConnection } from '../database.js';
import type { LookRequest } from './ledger-reader.js';
import { serveRequests, type StateThreadInput } from './request-thread.js';
import { SourceLooks, type SourceLookColumns } from '../source-looks.js';

const { path, busyTimeoutMs } = workerData as StateThreadInput;
const db = new Database(path, { fileMustExist: true });
configureConnection(db, busyTimeoutMs);
// Reads only: a bug that tried to write here fails instead of racing the store's own connection.
db.pragma('query_only = ON');
const looks = new SourceLooks(db);

serveRequests<LookRequest, SourceLookColumns>(
  ({ sync, remoteIds, sourcePrints }) => {
    const answer = looks.look(sync, remoteIds, sourcePrints);
    return { answer, transfer: [answer.unchanged.buffer as ArrayBuffer] };
  },
  () => db.close(),
);

/**
 * The ledger reader's thread: answers source looks on a connection of its
 * own, one request at a time, in the order they came.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { STATE_CACHE_KIB } from './database.js';
import type { CloseRequest, LedgerReaderInput, LookReply, LookRequest } from './ledger-reader-protocol.js';
import { SourceLooks } from './source-looks.js';

const port = parentPort!;
const { path, busyTimeoutMs } = workerData as LedgerReaderInput;
const db = new Database(path, { fileMustExist: true });
db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
db.pragma(`cache_size = ${STATE_CACHE_KIB}`);
// Reads only: a bug that tried to write here fails instead of racing the store's own connection.
db.pragma('query_only = ON');
const looks = new SourceLooks(db);

port.on('message', (request: LookRequest | CloseRequest) => {
  if ('close' in request) {
    db.close();
    port.close();
    return;
  }
  const { id, sync, remoteIds, sourcePrints } = request;
  let reply: LookReply;
  try {
    reply = { id, ...looks.look(sync, remoteIds, sourcePrints) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply, 'unchanged' in reply ? [reply.unchanged.buffer as ArrayBuffer] : []);
});

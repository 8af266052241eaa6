/**
 * One commit's work on a connection: the buffered writes in order, then the
 * cursor when the commit moves one. The same on the store's own connection
 * and on its commit thread (commit-thread-worker.ts); the caller wraps it in a
 * transaction.
 */
import type { CursorTable } from './cursors.js';
import type { FailureTable } from './failures.js';
import type { LedgerTable } from './ledger.js';
import { groupWrites, type PendingWrite } from './write-buffer.js';

export interface WriteTables {
  ledger: LedgerTable;
  failures: FailureTable;
  cursors: CursorTable;
}

/** A cursor move, its position already encoded (so a bad cursor fails the caller, not a commit on another thread). */
export interface CursorMove {
  sync: string;
  position: string;
  at: string;
}

export function applyWrites(tables: WriteTables, writes: readonly PendingWrite[], move?: CursorMove): void {
  // Whether each sync has open record failures, asked once per commit: an acknowledgement then
  // deletes its record's one, and a sync with none (the usual case) costs no DELETE per record.
  // Asked only after this transaction's first write, so no other process can add one meanwhile.
  const withFailures = new Map<string, boolean>();
  for (const group of groupWrites(writes, { repeats: true })) {
    switch (group.kind) {
      case 'acknowledged':
        tables.ledger.writeAcknowledged(group.writes);
        for (const { write } of group.writes) {
          let open = withFailures.get(write.sync);
          if (open === undefined) withFailures.set(write.sync, (open = tables.failures.hasRecordFailures(write.sync)));
          if (open) tables.failures.resolve(write.sync, write.remoteId);
        }
        break;
      case 'failure': {
        const { write, at } = group.write;
        if (write.remoteId !== null) tables.ledger.writeFailure({ ...write, remoteId: write.remoteId }, at);
        tables.failures.write(write, at);
        withFailures.set(write.sync, true);
        break;
      }
      case 'deleted':
        for (const { sync, remoteId, at } of group.writes) tables.ledger.writeDeleted(sync, remoteId, at);
        break;
    }
  }
  if (move !== undefined) tables.cursors.setEncoded(move.sync, move.position, move.at);
}

/**
 * Applies buffered writes inside one transaction with as few statements as
 * possible. Consecutive acknowledgements (or deletes) of distinct records go
 * in as one multi-row upsert; a write of a kind change or of a record already
 * in the current group starts a new group, because one upsert may not touch
 * a row twice and later writes of a record must land after earlier ones.
 */
import type { AcknowledgedWrite } from '../types.js';
import type { PendingWrite } from '../sqlite/write-buffer.js';
import type { Queryable } from './database.js';
import type { PgFailures } from './failures.js';
import type { PgLedger } from './ledger.js';

type Group =
  | { kind: 'acknowledged'; writes: { write: AcknowledgedWrite; at: string }[] }
  | { kind: 'deleted'; writes: { sync: string; remoteId: string; at: string }[] }
  | { kind: 'failure'; write: Extract<PendingWrite, { kind: 'failure' }> };

export async function applyWrites(db: Queryable, writes: readonly PendingWrite[], tables: { ledger: PgLedger; failures: PgFailures }): Promise<void> {
  for (const group of groupWrites(writes)) {
    switch (group.kind) {
      case 'acknowledged':
        await tables.ledger.writeAcknowledged(db, group.writes);
        break;
      case 'deleted':
        await tables.ledger.writeDeleted(db, group.writes);
        break;
      case 'failure': {
        const { write, at } = group.write;
        if (write.remoteId !== null) await tables.ledger.writeFailure(db, { ...write, remoteId: write.remoteId }, at);
        await tables.failures.write(db, write, at);
        break;
      }
    }
  }
}

export function groupWrites(writes: readonly PendingWrite[]): Group[] {
  const groups: Group[] = [];
  let current: Exclude<Group, { kind: 'failure' }> | undefined;
  let keys = new Set<string>();
  for (const w of writes) {
    if (w.kind === 'failure') {
      current = undefined;
      groups.push({ kind: 'failure', write: w });
      continue;
    }
    const key = w.kind === 'acknowledged' ? `${w.write.sync}\u0000${w.write.remoteId}` : `${w.sync}\u0000${w.remoteId}`;
    if (current === undefined || current.kind !== w.kind || keys.has(key)) {
      current = w.kind === 'acknowledged' ? { kind: 'acknowledged', writes: [] } : { kind: 'deleted', writes: [] };
      groups.push(current);
      keys = new Set();
    }
    keys.add(key);
    if (current.kind === 'acknowledged' && w.kind === 'acknowledged') current.writes.push({ write: w.write, at: w.at });
    else if (current.kind === 'deleted' && w.kind === 'deleted') current.writes.push({ sync: w.sync, remoteId: w.remoteId, at: w.at });
  }
  return groups;
}

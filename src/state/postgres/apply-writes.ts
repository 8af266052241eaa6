/**
 * Applies buffered writes inside one transaction with as few statements as
 * possible: each group of {@link groupWrites} is one multi-row upsert. A
 * PostgreSQL upsert may not touch a row twice, so a record already in the
 * current group starts a new one.
 */
import { groupWrites, type PendingWrite } from '../sqlite/write-buffer.js';
import type { Queryable } from './database.js';
import type { PgFailures } from './failures.js';
import type { PgLedger } from './ledger.js';

export async function applyWrites(db: Queryable, writes: readonly PendingWrite[], tables: { ledger: PgLedger; failures: PgFailures }): Promise<void> {
  for (const group of groupWrites(writes, { repeats: false })) {
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

/**
 * SQLite-specific checkpoint behaviour. The backend-neutral contract (commit
 * visibility, cursor precision, …) is in test/support/state-store-conformance.ts.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { CursorPosition, StateStore } from '../../../src/state/index.js';
import { useTempDir } from './helpers.js';

const tempDir = useTempDir();

function ack(store: StateStore, remoteId: string): Promise<void> {
  return store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `fp-${remoteId}`, recordId: `rec-${remoteId}` });
}

/** A second connection to the same file sees only what was committed. */
async function committed(path: string): Promise<{ cursor: CursorPosition | undefined; acks: number }> {
  const reader = await openStateStore(`sqlite:${path}`);
  try {
    return { cursor: await reader.cursor('deals'), acks: (await reader.fingerprints('deals', ['a', 'b', 'c', 'd'])).size };
  } finally {
    await reader.close();
  }
}

describe('sqlite checkpoints', () => {
  it('commits exactly when the buffer reaches batchSize, without the cursor', async () => {
    const path = join(tempDir(), 'ferry.db');
    const store = await openStateStore(`sqlite:${path}`, { batchSize: 3 });
    await store.checkpoint('deals', { value: 1 });
    await ack(store, 'a');
    await ack(store, 'b');
    expect((await committed(path)).acks).toBe(0);
    await ack(store, 'c'); // buffer full: committed without the cursor
    expect(await committed(path)).toEqual({ cursor: { value: 1 }, acks: 3 });
    await store.close();
  });

  it('rolls back the whole batch and keeps it buffered when the commit fails', async () => {
    const path = join(tempDir(), 'ferry.db');
    const store = await openStateStore(`sqlite:${path}`);
    await store.checkpoint('deals', { value: 1 });
    // Simulate a write failing half-way through the batch (disk full, I/O error).
    const saboteur = new Database(path);
    saboteur.exec("CREATE TRIGGER boom BEFORE INSERT ON ledger WHEN NEW.remote_id = 'b' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    await ack(store, 'a');
    await ack(store, 'b');
    await expect(store.checkpoint('deals', { value: 2 })).rejects.toMatchObject({
      code: 'FERRY_STATE_ERROR',
      message: expect.stringContaining('disk on fire'),
    });
    expect(await committed(path)).toEqual({ cursor: { value: 1 }, acks: 0 });
    // The batch stayed buffered: once the fault is gone, the retry commits all of it.
    saboteur.exec('DROP TRIGGER boom');
    saboteur.close();
    await store.checkpoint('deals', { value: 2 });
    expect(await committed(path)).toEqual({ cursor: { value: 2 }, acks: 2 });
    await store.close();
  });
});

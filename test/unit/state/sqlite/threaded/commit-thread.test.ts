/**
 * Commits on the store's commit thread (src/state/sqlite/threaded/threaded-commits.ts):
 * a commit the thread cannot make loses nothing, moves no cursor, and the
 * store commits on its own connection from then on.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { LedgerTable } from '../../../../../src/state/sqlite/ledger.js';
import { SqliteStateStore } from '../../../../../src/state/sqlite/sqlite-state-store.js';
import { useTempDir } from '../../helpers.js';

const tempDir = useTempDir();
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('the commit thread', () => {
  it('gives back the writes of a commit it could not make, and of every commit after it; the cursor stays', async () => {
    const path = join(tempDir(), 'state.db');
    const store = new SqliteStateStore(path, { threadsAfter: 0, batchSize: 10, busyTimeoutMs: 50 });
    const ack = (remoteId: string) => store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `f-${remoteId}`, recordId: 'r' });
    try {
      for (const id of ids('first', 10)) await ack(id);
      await store.checkpoint('deals', { value: 1 });

      // Another connection holds the write lock longer than the thread waits for it.
      const blocker = new Database(path);
      blocker.exec('BEGIN IMMEDIATE');
      for (const id of ids('second', 25)) await ack(id); // two full buffers go to the thread, five writes stay
      const moving = store.checkpoint('deals', { value: 2 });
      await expect(moving).rejects.toThrow(/cannot commit buffered writes in the state database .*: .*database is locked/);
      blocker.exec('ROLLBACK');
      blocker.close();

      // Nothing was lost: the store commits what came back on its own connection.
      expect((await store.fingerprints('deals', ids('second', 25))).size).toBe(25);
      expect(await store.cursor('deals')).toEqual({ value: 1 });
      for (const id of ids('third', 10)) await ack(id);
      await store.checkpoint('deals', { value: 3 });
    } finally {
      await store.close();
    }
    const reopened = new SqliteStateStore(path, { threadsAfter: Number.POSITIVE_INFINITY });
    try {
      expect(await reopened.countLive('deals')).toBe(45);
      expect(await reopened.cursor('deals')).toEqual({ value: 3 });
    } finally {
      await reopened.close();
    }
  });

  it('makes a read wait for a commit in flight that holds one of its records', async () => {
    const path = join(tempDir(), 'state.db');
    const store = new SqliteStateStore(path, { threadsAfter: 0, batchSize: 100 });
    try {
      const all = ids('r', 1000);
      // Not awaited: ten commits go to the thread (room for four at a time), and the reads follow at once.
      const writes = all.map((remoteId) => store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `f-${remoteId}`, recordId: 'r', sourceFingerprint: `p-${remoteId}` }));
      const look = await store.unchangedAtSource('deals', all, all.map((id) => `p-${id}`));
      expect(look.unchanged.every((u) => u === 1)).toBe(true);
      expect((await store.fingerprints('deals', ['r-999'])).get('r-999')?.fingerprint).toBe('f-r-999');
      await Promise.all(writes);
    } finally {
      await store.close();
    }
  });

  it('commits what a flush finds buffered on the thread, not on the run\'s', async () => {
    const path = join(tempDir(), 'state.db');
    const store = new SqliteStateStore(path, { threadsAfter: 0, batchSize: 100 });
    // The thread loads its own copy of the module: only the store's own connection writes through this prototype.
    const onRunThread = vi.spyOn(LedgerTable.prototype, 'writeAcknowledged');
    try {
      for (const remoteId of ids('r', 250)) await store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `f-${remoteId}`, recordId: 'r' });
      await store.flush();
      expect(onRunThread).not.toHaveBeenCalled();
      const other = new Database(path, { readonly: true });
      expect(other.prepare('SELECT count(*) AS n FROM ledger').get()).toEqual({ n: 250 });
      other.close();
    } finally {
      onRunThread.mockRestore();
      await store.close();
    }
  });

  it('leaves writes made while a flush waits to the next commit, not to the run\'s thread', async () => {
    const path = join(tempDir(), 'state.db');
    const store = new SqliteStateStore(path, { threadsAfter: 0, batchSize: 100 });
    const onRunThread = vi.spyOn(LedgerTable.prototype, 'writeAcknowledged');
    const ack = (remoteId: string) => store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `f-${remoteId}`, recordId: 'r' });
    try {
      for (const remoteId of ids('before', 250)) await ack(remoteId);
      const flushed = store.flush();
      // Acknowledgements go on while the checkpoint waits for the thread: 30, fewer than a batch.
      for (const remoteId of ids('during', 30)) await ack(remoteId);
      await flushed;
      expect(onRunThread).not.toHaveBeenCalled();
      const other = new Database(path, { readonly: true });
      const count = (prefix: string) => (other.prepare('SELECT count(*) AS n FROM ledger WHERE remote_id LIKE ?').get(`${prefix}-%`) as { n: number }).n;
      expect(count('before')).toBe(250);
      other.close();
      // Not lost: the next flush commits them.
      await store.flush();
      expect((await store.fingerprints('deals', ['during-29'])).get('during-29')?.fingerprint).toBe('f-during-29');
      expect(onRunThread).not.toHaveBeenCalled();
    } finally {
      onRunThread.mockRestore();
      await store.close();
    }
  });
});

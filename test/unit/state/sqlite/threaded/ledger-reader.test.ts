/**
 * Source looks on the ledger reader's thread (src/state/sqlite/threaded/ledger-reader.ts)
 * answer as the store's own connection does, and see every write the store
 * held when it was asked.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteStateStore } from '../../../../../src/state/sqlite/sqlite-state-store.js';
import { threadsAfterSetting } from '../../../../../src/state/sqlite/threaded/start.js';
import { LedgerReader } from '../../../../../src/state/sqlite/threaded/ledger-reader.js';
import type { SourceLook } from '../../../../../src/state/index.js';
import { useTempDir } from '../../helpers.js';

const tempDir = useTempDir();

/** A ledger with one entry of each kind a look must tell apart. */
async function seeded(path: string, options: { threadsAfter: number }): Promise<SqliteStateStore> {
  const store = new SqliteStateStore(path, options);
  const ack = (remoteId: string, sourceFingerprint?: string) =>
    store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `body-${remoteId}`, recordId: `rec-${remoteId}`, ...(sourceFingerprint ? { sourceFingerprint } : {}) });
  await ack('same', 'print-same');
  await ack('edited', 'print-old');
  await ack('no-print');
  await ack('gone', 'print-gone');
  await store.recordDeleted('deals', 'gone');
  await store.recordFailure({ sync: 'deals', runId: null, remoteId: 'failed', origin: null, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: null });
  await store.recordAcknowledged({ sync: 'other', remoteId: 'elsewhere', fingerprint: 'b', recordId: 'r', sourceFingerprint: 'print-elsewhere' });
  await store.flush();
  return store;
}

const IDS = ['same', 'edited', 'no-print', 'gone', 'failed', 'missing', 'elsewhere'];
const PRINTS = ['print-same', 'print-new', 'print-any', 'print-gone', 'print-failed', 'print-missing', 'print-elsewhere'];

function plain(look: SourceLook): { unchanged: number[]; others: Record<string, unknown> } {
  return { unchanged: [...look.unchanged], others: Object.fromEntries(look.others) };
}

describe('the ledger reader thread', () => {
  it('answers a source look as the store\'s own connection does', async () => {
    const dir = tempDir();
    const own = await seeded(join(dir, 'own.db'), { threadsAfter: Number.POSITIVE_INFINITY });
    const threaded = await seeded(join(dir, 'threaded.db'), { threadsAfter: 0 });
    try {
      const expected = plain(await own.unchangedAtSource('deals', IDS, PRINTS));
      expect(expected.unchanged).toEqual([1, 0, 0, 0, 0, 0, 0]);
      expect(Object.keys(expected.others).sort()).toEqual(['edited', 'failed', 'gone', 'no-print']);
      expect(expected.others.edited).toEqual({ fingerprint: 'body-edited', status: 'pushed', recordId: 'rec-edited', sourceFingerprint: 'print-old' });
      expect(plain(await threaded.unchangedAtSource('deals', IDS, PRINTS))).toEqual(expected);
    } finally {
      await own.close();
      await threaded.close();
    }
  });

  it('sees a write the store still held when it was asked, and answers batches larger than one statement', async () => {
    const path = join(tempDir(), 'state.db');
    const store = await seeded(path, { threadsAfter: 0 });
    try {
      expect([...(await store.unchangedAtSource('deals', ['edited'], ['print-new'])).unchanged]).toEqual([0]);
      // Buffered, not committed: the store commits it before the thread looks.
      await store.recordAcknowledged({ sync: 'deals', remoteId: 'edited', fingerprint: 'body-2', recordId: 'rec-edited', sourceFingerprint: 'print-new' });
      expect([...(await store.unchangedAtSource('deals', ['edited'], ['print-new'])).unchanged]).toEqual([1]);

      const many = Array.from({ length: 1234 }, (_, i) => `id-${i}`);
      for (const id of many.filter((_, i) => i % 3 === 0)) await store.recordAcknowledged({ sync: 'deals', remoteId: id, fingerprint: 'b', recordId: 'r', sourceFingerprint: `p-${id}` });
      const look = await store.unchangedAtSource('deals', many, many.map((id) => `p-${id}`));
      expect([...look.unchanged]).toEqual(many.map((_, i) => (i % 3 === 0 ? 1 : 0)));
      expect(look.others.size).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('ends its thread when closed, and refuses looks after that', async () => {
    const path = join(tempDir(), 'state.db');
    const store = await seeded(path, { threadsAfter: Number.POSITIVE_INFINITY });
    const reader = new LedgerReader({ path, busyTimeoutMs: 1000 });
    try {
      expect([...(await reader.look('deals', ['same', 'edited'], ['print-same', 'print-same'])).unchanged]).toEqual([1, 0]);
      await reader.close();
      expect(reader.usable).toBe(false);
      await expect(reader.look('deals', ['same'], ['print-same'])).rejects.toThrow(/closed/);
    } finally {
      await store.close();
    }
  });

  it('reports a look the thread cannot answer as the store\'s error, naming the file', async () => {
    const path = join(tempDir(), 'state.db');
    const store = await seeded(path, { threadsAfter: 0 });
    try {
      expect([...(await store.unchangedAtSource('deals', ['same'], ['print-same'])).unchanged]).toEqual([1]);
      const other = new Database(path);
      other.exec('DROP TABLE ledger');
      other.close();
      const failing = store.unchangedAtSource('deals', ['same'], ['print-same']);
      await expect(failing).rejects.toThrow(`cannot look up source fingerprints in the state database ${path}: no such table: ledger`);
    } finally {
      await store.close();
    }
  });
});

describe('FERRY_STATE_THREADS', () => {
  it('starts the reader after 10,000 ids by default, from the first look with "on", never with "off"', () => {
    expect(threadsAfterSetting({})).toBe(10_000);
    expect(threadsAfterSetting({ FERRY_STATE_THREADS: ' Auto ' })).toBe(10_000);
    expect(threadsAfterSetting({ FERRY_STATE_THREADS: 'on' })).toBe(0);
    expect(threadsAfterSetting({ FERRY_STATE_THREADS: 'OFF' })).toBe(Number.POSITIVE_INFINITY);
    expect(() => threadsAfterSetting({ FERRY_STATE_THREADS: 'yes' })).toThrow(
      expect.objectContaining({ code: 'FERRY_CONFIG_INVALID', message: 'FERRY_STATE_THREADS must be "auto", "on" or "off", found "yes"' }),
    );
  });
});

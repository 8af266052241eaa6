import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';

function memory(batchSize?: number): StateStore {
  return openStateStore('sqlite::memory:', batchSize === undefined ? {} : { batchSize });
}

function ack(store: StateStore, remoteId: string, fingerprint = `fp-${remoteId}`, sync = 'deals'): void {
  store.recordAcknowledged({ sync, remoteId, fingerprint, recordId: `rec-${remoteId}`, origin: `deals.csv:${remoteId}` });
}

describe('ledger', () => {
  it('round-trips an acknowledgement', () => {
    const store = memory();
    ack(store, 'a');
    store.flush();
    expect(store.ledgerEntry('deals', 'a')).toMatchObject({
      sync: 'deals',
      remoteId: 'a',
      fingerprint: 'fp-a',
      recordId: 'rec-a',
      status: 'pushed',
      attempts: 0,
      lastError: null,
      origin: 'deals.csv:a',
    });
    expect(store.ledgerEntry('deals', 'missing')).toBeUndefined();
    expect(store.ledgerEntry('other', 'a')).toBeUndefined();
    store.close();
  });

  it('keeps syncs apart and overwrites on re-acknowledgement', () => {
    const store = memory();
    ack(store, 'a', 'v1');
    ack(store, 'a', 'other-sync', 'notes');
    store.flush();
    ack(store, 'a', 'v2');
    store.flush();
    expect(store.ledgerEntry('deals', 'a')?.fingerprint).toBe('v2');
    expect(store.ledgerEntry('notes', 'a')?.fingerprint).toBe('other-sync');
    store.close();
  });

  it('looks fingerprints up in batches larger than one IN list', () => {
    const store = memory();
    for (let i = 0; i < 1234; i++) ack(store, `id-${i}`);
    store.flush();
    const wanted = Array.from({ length: 1300 }, (_, i) => `id-${i}`); // 66 of them unknown
    const found = store.fingerprints('deals', wanted);
    expect(found.size).toBe(1234);
    expect(found.get('id-0')).toEqual({ fingerprint: 'fp-id-0', status: 'pushed', recordId: 'rec-id-0' });
    expect(found.get('id-1233')?.fingerprint).toBe('fp-id-1233');
    expect(found.has('id-1234')).toBe(false);
    // odd chunk sizes (padding) and an empty lookup
    expect(store.fingerprints('deals', ['id-5', 'id-6', 'nope']).size).toBe(2);
    expect(store.fingerprints('deals', []).size).toBe(0);
    store.close();
  });

  it('lets reads see writes still in the buffer', () => {
    const store = memory();
    ack(store, 'a', 'v1');
    expect(store.fingerprints('deals', ['a']).get('a')?.fingerprint).toBe('v1');
    expect(store.ledgerEntry('deals', 'a')?.status).toBe('pushed');
    store.close();
  });

  it('records a failure on the ledger and in the dead-letter', () => {
    const store = memory();
    ack(store, 'a', 'good');
    store.recordFailure({
      sync: 'deals',
      runId: null,
      remoteId: 'a',
      origin: 'deals.csv:7',
      kind: 'rejected',
      reason: 'amount must be a number',
      status: 422,
      errorBody: { error: { code: 'validation_error' } },
      body: { id: 'a', fields: { amount: 'lots' } },
      sourceRecord: { id: 'a', amount: 'lots', big: 12345678901234567890n, raw: Buffer.from('hi') },
      fingerprint: 'bad',
    });
    store.flush();
    const entry = store.ledgerEntry('deals', 'a');
    expect(entry).toMatchObject({ status: 'failed', fingerprint: 'bad', attempts: 1, lastError: 'amount must be a number', recordId: 'rec-a' });
    const [failure] = store.failures();
    expect(failure).toMatchObject({
      sync: 'deals',
      remoteId: 'a',
      origin: 'deals.csv:7',
      kind: 'rejected',
      status: 422,
      errorBody: { error: { code: 'validation_error' } },
      body: { id: 'a', fields: { amount: 'lots' } },
      sourceRecord: { id: 'a', amount: 'lots', big: '12345678901234567890', raw: 'base64:aGk=' },
      attempts: 1,
    });
    expect(typeof failure?.id).toBe('number');
    store.close();
  });

  it('keeps the previous fingerprint when a failure carries none', () => {
    const store = memory();
    ack(store, 'a', 'good');
    store.recordFailure({ sync: 'deals', runId: null, remoteId: 'a', origin: null, kind: 'rejected', reason: 'r', status: 400, errorBody: null, body: null, sourceRecord: null });
    store.recordFailure({ sync: 'deals', runId: null, remoteId: 'new', origin: null, kind: 'invalid', reason: 'r', status: null, errorBody: null, body: null, sourceRecord: null });
    expect(store.ledgerEntry('deals', 'a')?.fingerprint).toBe('good');
    expect(store.ledgerEntry('deals', 'new')).toMatchObject({ fingerprint: '', status: 'failed', recordId: null });
    store.close();
  });

  it('replaces an older open failure of the same record and counts attempts', () => {
    const store = memory();
    const failure = (reason: string, remoteId: string | null = 'a') =>
      store.recordFailure({ sync: 'deals', runId: null, remoteId, origin: null, kind: 'rejected', reason, status: 422, errorBody: null, body: null, sourceRecord: null });
    failure('first');
    store.flush();
    failure('second');
    failure('no id 1', null);
    failure('no id 2', null);
    store.flush();
    const all = store.failures({ sync: 'deals' });
    expect(all.map((f) => f.reason)).toEqual(['no id 2', 'no id 1', 'second']);
    expect(all.find((f) => f.remoteId === 'a')?.attempts).toBe(2);
    expect(store.ledgerEntry('deals', 'a')?.attempts).toBe(2);
    expect(store.failureCount('deals')).toBe(3);
    expect(store.failureCount()).toBe(3);
    expect(store.failures({ limit: 1 })).toHaveLength(1);
    store.close();
  });

  it('removes a failure after a successful retry, and an acknowledgement resolves it too', () => {
    const store = memory();
    const failure = (remoteId: string) =>
      store.recordFailure({ sync: 'deals', runId: null, remoteId, origin: null, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: null });
    failure('a');
    failure('b');
    store.flush();
    const a = store.failures().find((f) => f.remoteId === 'a');
    store.removeFailure(a?.id ?? -1);
    expect(store.failures().map((f) => f.remoteId)).toEqual(['b']);
    ack(store, 'b', 'fixed');
    expect(store.failureCount('deals')).toBe(0);
    expect(store.ledgerEntry('deals', 'b')).toMatchObject({ status: 'pushed', attempts: 0, lastError: null, fingerprint: 'fixed' });
    store.close();
  });

  it('refuses a failure that names an unknown run at once, not at commit time', () => {
    const store = memory();
    expect(() =>
      store.recordFailure({ sync: 'deals', runId: 'no-such-run', remoteId: 'a', origin: null, kind: 'rejected', reason: 'x', status: 400, errorBody: null, body: null, sourceRecord: null }),
    ).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    ack(store, 'b');
    store.flush(); // the buffer was not poisoned
    expect(store.ledgerEntry('deals', 'b')?.status).toBe('pushed');
    store.close();
  });

  it('purges failures per sync or all', () => {
    const store = memory();
    for (const sync of ['a', 'a', 'b']) {
      store.recordFailure({ sync, runId: null, remoteId: null, origin: null, kind: 'invalid', reason: 'x', status: null, errorBody: null, body: null, sourceRecord: null });
    }
    expect(store.purgeFailures('a')).toBe(2);
    expect(store.failureCount()).toBe(1);
    expect(store.purgeFailures()).toBe(1);
    store.close();
  });

  it('marks deletions and streams live ids across pages while deletes are recorded', () => {
    const store = memory(100); // auto-commits every 100 writes, mid-iteration
    const n = 2503;
    for (let i = 0; i < n; i++) ack(store, `id-${String(i).padStart(5, '0')}`);
    store.recordDeleted('deals', 'id-00000');
    store.recordDeleted('deals', 'never-seen');
    expect(store.countLive('deals')).toBe(n - 1);
    expect(store.ledgerEntry('deals', 'never-seen')?.status).toBe('deleted');
    expect(store.ledgerEntry('deals', 'id-00000')).toMatchObject({ status: 'deleted', fingerprint: 'fp-id-00000' });

    const seen: string[] = [];
    let deleted = 0;
    for (const id of store.liveRemoteIds('deals')) {
      seen.push(id);
      if (id.endsWith('1')) {
        store.recordDeleted('deals', id); // writes (and auto-commits) while iterating must not fail
        deleted++;
      }
    }
    expect(deleted).toBeGreaterThan(200);
    expect(seen).toHaveLength(n - 1);
    expect(new Set(seen).size).toBe(n - 1);
    store.flush();
    expect(store.countLive('deals')).toBe(n - 1 - deleted);
    expect(store.countLive('other')).toBe(0);
    expect([...store.liveRemoteIds('other')]).toEqual([]);
    store.close();
  });
});

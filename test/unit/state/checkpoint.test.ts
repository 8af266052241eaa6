import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { CursorPosition, StateStore } from '../../../src/state/index.js';
import { useTempDir } from './helpers.js';

const tempDir = useTempDir();

function ack(store: StateStore, remoteId: string): void {
  store.recordAcknowledged({ sync: 'deals', remoteId, fingerprint: `fp-${remoteId}`, recordId: `rec-${remoteId}` });
}

/** A second connection to the same file sees only what was committed. */
function committed(path: string): { cursor: CursorPosition | undefined; acks: number } {
  const reader = openStateStore(`sqlite:${path}`);
  try {
    return { cursor: reader.cursor('deals'), acks: reader.fingerprints('deals', ['a', 'b', 'c', 'd']).size };
  } finally {
    reader.close();
  }
}

describe('checkpoints', () => {
  it('commits buffered acknowledgements and the cursor together', () => {
    const path = join(tempDir(), 'ferry.db');
    const store = openStateStore(`sqlite:${path}`);
    ack(store, 'a');
    ack(store, 'b');
    // Nothing is committed yet: a crash here loses the acks and leaves the cursor where it was.
    expect(committed(path)).toEqual({ cursor: undefined, acks: 0 });
    store.checkpoint('deals', { value: '2024-03-01T00:00:00Z', key: 'b' });
    expect(committed(path)).toEqual({ cursor: { value: '2024-03-01T00:00:00Z', key: 'b' }, acks: 2 });
    store.close();
  });

  it('never moves the cursor on an automatic flush', () => {
    const path = join(tempDir(), 'ferry.db');
    const store = openStateStore(`sqlite:${path}`, { batchSize: 3 });
    store.checkpoint('deals', { value: 1 });
    ack(store, 'a');
    ack(store, 'b');
    expect(committed(path).acks).toBe(0);
    ack(store, 'c'); // buffer full: committed without the cursor
    expect(committed(path)).toEqual({ cursor: { value: 1 }, acks: 3 });
    ack(store, 'd');
    store.flush();
    expect(committed(path)).toEqual({ cursor: { value: 1 }, acks: 4 });
    store.checkpoint('deals', { value: 4 });
    expect(committed(path).cursor).toEqual({ value: 4 });
    store.close();
  });

  it('leaves the cursor alone when checkpointing without one', () => {
    const store = openStateStore('sqlite::memory:');
    store.checkpoint('deals', { value: 'x' });
    ack(store, 'a');
    store.checkpoint('deals', undefined);
    expect(store.cursor('deals')).toEqual({ value: 'x' });
    expect(store.ledgerEntry('deals', 'a')?.status).toBe('pushed');
    store.close();
  });

  it('rolls back the whole batch and keeps it buffered when the commit fails', () => {
    const path = join(tempDir(), 'ferry.db');
    const store = openStateStore(`sqlite:${path}`);
    store.checkpoint('deals', { value: 1 });
    // Simulate a write failing half-way through the batch (disk full, I/O error).
    const saboteur = new Database(path);
    saboteur.exec("CREATE TRIGGER boom BEFORE INSERT ON ledger WHEN NEW.remote_id = 'b' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    ack(store, 'a');
    ack(store, 'b');
    expect(() => store.checkpoint('deals', { value: 2 })).toThrow(
      expect.objectContaining({ code: 'FERRY_STATE_ERROR', message: expect.stringContaining('disk on fire') }),
    );
    expect(committed(path)).toEqual({ cursor: { value: 1 }, acks: 0 });
    // The batch stayed buffered: once the fault is gone, the retry commits all of it.
    saboteur.exec('DROP TRIGGER boom');
    saboteur.close();
    store.checkpoint('deals', { value: 2 });
    expect(committed(path)).toEqual({ cursor: { value: 2 }, acks: 2 });
    store.close();
  });

  it('keeps buffered acknowledgements (never the cursor) on a clean close', () => {
    const path = join(tempDir(), 'ferry.db');
    const store = openStateStore(`sqlite:${path}`);
    store.checkpoint('deals', { value: 1 });
    ack(store, 'a');
    store.close();
    expect(committed(path)).toEqual({ cursor: { value: 1 }, acks: 1 });
    expect(() => store.cursor('deals')).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    store.close(); // idempotent
  });

  const precise: Array<[string, CursorPosition]> = [
    ['timestamptz with microseconds and zone', { value: '2024-03-01 12:00:00.123456+02', key: 'deal-42' }],
    ['numeric beyond a double', { value: '12345678901234567890.123' }],
    ['int8 beyond 2^53 as text', { value: (9007199254740993n).toString(), key: '9007199254740993' }],
    ['plain number', { value: 0.1 }],
    ['large safe integer', { value: Number.MAX_SAFE_INTEGER }],
    ['negative fraction', { value: -1.5e-7 }],
    ['unicode key', { value: '', key: 'zoë/💡' }],
  ];
  for (const [name, position] of precise) {
    it(`stores a cursor at full precision: ${name}`, () => {
      const path = join(tempDir(), 'ferry.db');
      const store = openStateStore(`sqlite:${path}`);
      store.checkpoint('deals', position);
      store.close();
      const reopened = openStateStore(`sqlite:${path}`);
      const back = reopened.cursor('deals');
      expect(back).toEqual(position);
      expect(typeof back?.value).toBe(typeof position.value);
      reopened.close();
    });
  }

  it('refuses a cursor that cannot be stored exactly', () => {
    const store = openStateStore('sqlite::memory:');
    expect(() => store.checkpoint('deals', { value: Number.NaN })).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    store.close();
  });

  it('persists ledger, cursor, runs and failures across reopen', () => {
    const path = join(tempDir(), 'nested', 'dir', 'ferry.db'); // parent dirs are created
    const first = openStateStore(`sqlite:${path}`);
    const runId = first.startRun('deals');
    ack(first, 'a');
    first.recordFailure({ sync: 'deals', runId, remoteId: 'b', origin: 'x.csv:2', kind: 'rejected', reason: 'bad', status: 422, errorBody: { e: 1 }, body: { id: 'b' }, sourceRecord: { id: 'b' } });
    first.checkpoint('deals', { value: '5' });
    first.finishRun(runId, { status: 'partial', counts: { read: 2, pushed: 1, created: 1, updated: 0, unchanged: 0, failed: 1, deleted: 0, skipped: 0 } });
    first.close();

    const second = openStateStore(`sqlite:${path}`);
    expect(second.ledgerEntry('deals', 'a')?.fingerprint).toBe('fp-a');
    expect(second.cursor('deals')).toEqual({ value: '5' });
    expect(second.lastRun('deals')).toMatchObject({ runId, status: 'partial', cursor: { value: '5' } });
    expect(second.failures()[0]).toMatchObject({ runId, remoteId: 'b', errorBody: { e: 1 } });
    second.close();
  });
});

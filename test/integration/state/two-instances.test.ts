import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';

const open: StateStore[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pair(): [StateStore, StateStore] {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-state-it-'));
  dirs.push(dir);
  const url = `sqlite:${join(dir, 'ferry.db')}`;
  const a = openStateStore(url);
  const b = openStateStore(url);
  open.push(a, b);
  return [a, b];
}

describe('two store instances on one file', () => {
  it('compete for a lock: one wins until it releases', () => {
    const [a, b] = pair();
    expect(a.acquireLock('deals', 'a', 60_000)).toBe(true);
    expect(b.acquireLock('deals', 'b', 60_000)).toBe(false);
    expect(b.renewLock('deals', 'b', 60_000)).toBe(false);
    expect(a.renewLock('deals', 'a', 60_000)).toBe(true);
    a.releaseLock('deals', 'a');
    expect(b.acquireLock('deals', 'b', 60_000)).toBe(true);
    expect(a.acquireLock('deals', 'a', 60_000)).toBe(false);
  });

  it('see each other only through commits', () => {
    const [a, b] = pair();
    a.recordAcknowledged({ sync: 'deals', remoteId: 'x', fingerprint: 'f', recordId: 'r' });
    expect(b.ledgerEntry('deals', 'x')).toBeUndefined();
    a.checkpoint('deals', { value: '10' });
    expect(b.ledgerEntry('deals', 'x')?.fingerprint).toBe('f');
    expect(b.cursor('deals')).toEqual({ value: '10' });
  });

  it('let one read runs while the other writes them (status during a run)', () => {
    const [a, b] = pair();
    const runId = a.startRun('deals');
    a.updateRun(runId, { read: 3, pushed: 2, created: 2, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 1 });
    expect(b.lastRun('deals')).toMatchObject({ runId, status: 'running', counts: { read: 3, skipped: 1 } });
  });
});

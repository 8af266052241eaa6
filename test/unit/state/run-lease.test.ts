import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { isOwnerGone, newOwnerId, parseOwnerId, readLease, RunLease } from '../../../src/state/run-lease.js';

/** The pid of a process that has exited (pids are not reused that fast). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

function memoryLog(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { log, lines };
}

const stores: StateStore[] = [];
async function store(): Promise<StateStore> {
  const s = await openStateStore('sqlite::memory:');
  stores.push(s);
  return s;
}
afterEach(async () => {
  vi.useRealTimers();
  for (const s of stores.splice(0)) await s.close();
});

describe('run lease', () => {
  it('names its process in the owner id', () => {
    const owner = newOwnerId();
    expect(parseOwnerId(owner)).toEqual({ pid: process.pid, host: hostname() });
    expect(parseOwnerId('someone-else')).toBeUndefined();
    expect(isOwnerGone(owner)).toBe(false);
    expect(isOwnerGone(`${deadPid()}@${hostname()}#abc`)).toBe(true);
    expect(isOwnerGone(`${deadPid()}@another-host.example#abc`)).toBe(false);
  });

  it('takes over at once a lease whose process is gone on this host, and marks its run aborted', async () => {
    const s = await store();
    const dead = `${deadPid()}@${hostname()}#dead`;
    await s.acquireLock('deals', dead, 60_000);
    const orphan = await s.startRun('deals');
    expect(await readLease(s, 'deals')).toMatchObject({ state: 'stale', reason: expect.stringMatching(/process \d+ is gone/) });
    const { log, lines } = memoryLog();
    const lease = await RunLease.acquire(s, 'deals', 'sync "deals"', log);
    expect((await s.lockHolder('deals'))?.owner).toBe(lease.owner);
    expect(lines.some((l) => String(l.msg).includes('took over the lock of sync "deals"'))).toBe(true);
    expect((await s.runs({ sync: 'deals' }))[0]).toMatchObject({ runId: orphan, status: 'aborted' });
    expect(await readLease(s, 'deals')).toMatchObject({ state: 'held', owner: { pid: process.pid } });
    await lease.release();
    expect(await readLease(s, 'deals')).toEqual({ state: 'free' });
  });

  it('waits for the lease expiry of a holder on another host, and says who holds it', async () => {
    const s = await store();
    await s.acquireLock('deals', `4242@build-box-7#xyz`, 60_000);
    const { log } = memoryLog();
    await expect(RunLease.acquire(s, 'deals', 'sync "deals"', log)).rejects.toMatchObject({
      code: 'FERRY_SYNC_LOCKED',
      message: expect.stringContaining('process 4242 on build-box-7'),
    });
    expect(await readLease(s, 'deals')).toMatchObject({ state: 'held', owner: { pid: 4242, host: 'build-box-7' } });
  });

  it('logs a renewal that fails instead of throwing it, and keeps renewing', async () => {
    vi.useFakeTimers();
    const s = await store();
    let failures = 0;
    const flaky: StateStore = Object.assign(Object.create(s) as StateStore, {
      renewLock: () => (++failures <= 1 ? Promise.reject(new Error('database is locked')) : Promise.resolve(false)),
    });
    const { log, lines } = memoryLog();
    const lease = await RunLease.acquire(flaky, 'deals', 'sync "deals"', log);
    await vi.advanceTimersByTimeAsync(20_000);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(lines.map((l) => l.msg)).toEqual(['could not renew the run lock', expect.stringContaining('lost the run lock')]);
    await lease.release();
  });
});

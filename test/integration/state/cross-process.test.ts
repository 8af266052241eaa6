import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'state-child.ts');

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: Record<string, unknown> | undefined;
  stderr: string;
}

function runChild(...args: string[]): Promise<ChildResult> {
  return runChildWith({}, ...args);
}

function runChildWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.trim().split('\n').at(-1);
      resolve({ code, signal, stderr, output: line ? (JSON.parse(line) as Record<string, unknown>) : undefined });
    });
  });
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-state-it-'));
  dirs.push(dir);
  return join(dir, 'ferry.db');
}

describe('state store across processes', () => {
  it.each([
    ['on the store\'s connection', 'off'],
    ['on the commit thread', 'on'],
  ])('after a crash, neither the buffered acknowledgements nor a cursor past them survive (commits %s)', async (_where, threads) => {
    const path = dbPath();
    const result = await runChildWith({ FERRY_STATE_THREADS: threads }, 'crash', path);
    expect(result.signal).toBe('SIGKILL');
    expect(result.output).toEqual({ buffered: true });

    const store = await openStateStore(`sqlite:${path}`);
    const committed = Array.from({ length: 100 }, (_, i) => `committed-${i}`);
    const lost = Array.from({ length: 100 }, (_, i) => `lost-${i}`);
    expect((await store.fingerprints('deals', committed)).size).toBe(100);
    expect((await store.fingerprints('deals', lost)).size).toBe(0);
    expect(await store.cursor('deals')).toEqual({ value: '2024-03-01 12:00:00.123456+02', key: 'committed-99' });
    await store.close();
  });

  it('keeps whole commits of the commit thread when the process dies while they land, and the cursor only after them', async () => {
    // Killed at several moments of the same work: before, among and after the commits on their way.
    const seen = new Set<number>();
    for (const delayMs of [0, 2, 4, 8, 40]) {
      const path = dbPath();
      const result = await runChildWith({ FERRY_STATE_THREADS: 'on' }, 'crash-committing', path, '5000', String(delayMs));
      expect(result.signal, result.stderr).toBe('SIGKILL');
      const store = await openStateStore(`sqlite:${path}`, { threadsAfter: Number.POSITIVE_INFINITY });
      const live = await store.countLive('deals');
      const cursor = await store.cursor('deals');
      await store.close();
      expect(live % 1000, `killed after ${delayMs} ms: ${live} acknowledgements`).toBe(0);
      expect(live).toBeGreaterThanOrEqual(1000);
      expect(cursor).toEqual({ value: live === 5000 ? expect.any(Number) : 999 });
      if (cursor?.value === 4999) expect(live).toBe(5000);
      seen.add(live);
    }
    // The kills fell at more than one point of the work (a machine slow or fast shifts which).
    expect(seen.size, [...seen].join(', ')).toBeGreaterThan(1);
  });

  it('only one of several processes racing for a lock gets it', async () => {
    const path = dbPath();
    await (await openStateStore(`sqlite:${path}`)).close(); // create the schema once, so the race is about the lock
    const results = await Promise.all(['p1', 'p2', 'p3'].map((owner) => runChild('lock', path, 'deals', owner, '60000')));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const winners = results.filter((r) => r.output?.acquired === true);
    expect(winners).toHaveLength(1);

    // The winner's lease outlives its process until it expires.
    const store = await openStateStore(`sqlite:${path}`);
    expect(await store.acquireLock('deals', 'me', 60_000)).toBe(false);
    await store.close();
  });

  it('takes over a lease left behind by a process that died', async () => {
    const path = dbPath();
    const result = await runChild('lock', path, 'deals', 'ghost', '50');
    expect(result.output).toEqual({ owner: 'ghost', acquired: true });
    await new Promise((resolve) => setTimeout(resolve, 100)); // past the 50 ms lease
    const store = await openStateStore(`sqlite:${path}`);
    expect(await store.acquireLock('deals', 'me', 60_000)).toBe(true);
    await store.close();
  });

  it('concurrent writers on one file all land (busy timeout, no lost checkpoints)', async () => {
    const path = dbPath();
    await (await openStateStore(`sqlite:${path}`)).close();
    const results = await Promise.all(['a', 'b'].map((sync) => runChild('write', path, sync, '1000')));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const store = await openStateStore(`sqlite:${path}`);
    for (const sync of ['a', 'b']) {
      expect(await store.countLive(sync)).toBe(1000);
      expect(await store.cursor(sync)).toEqual({ value: 999 });
    }
    await store.close();
  });
});

/**
 * Micro-benchmark of the SQLite state store on a real file (WAL): 100k
 * acknowledgements, fingerprint lookups, the mirror-delete scan and lock
 * cycles. Returns ops/s per figure; `npx tsx bench/state.bench.ts` prints them.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStateStore } from '../src/state/index.js';

const N = 100_000;
const LOOKUP_BATCH = 500;

function opsPerSecond(ops: number, startNs: bigint): number {
  const seconds = Number(process.hrtime.bigint() - startNs) / 1e9;
  return Math.round(ops / seconds);
}

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-state-bench-'));
  const store = await openStateStore(`sqlite:${join(dir, 'ferry.db')}`);
  const results: Record<string, number> = {};
  try {
    const ids = Array.from({ length: N }, (_, i) => `deal-${String(i).padStart(7, '0')}`);
    const fingerprints = ids.map((id) => createHash('sha256').update(id).digest('hex'));

    let t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      await store.recordAcknowledged({ sync: 'bench', remoteId: ids[i] ?? '', fingerprint: fingerprints[i] ?? '', recordId: `rec-${i}`, origin: `deals.csv:${i + 2}` });
      if (i % 500 === 499) await store.checkpoint('bench', { value: String(i) });
    }
    await store.checkpoint('bench', { value: String(N) });
    results['ack (new rows, checkpoint per 500) ops/s'] = opsPerSecond(N, t);

    t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      await store.recordAcknowledged({ sync: 'bench', remoteId: ids[i] ?? '', fingerprint: `changed-${i}`, recordId: `rec-${i}` });
    }
    await store.flush();
    results['ack (updating existing rows, auto-flush per 500) ops/s'] = opsPerSecond(N, t);

    t = process.hrtime.bigint();
    let hits = 0;
    for (let i = 0; i < N; i += LOOKUP_BATCH) hits += (await store.fingerprints('bench', ids.slice(i, i + LOOKUP_BATCH))).size;
    results['fingerprint lookups, batches of 500 (hits) ids/s'] = opsPerSecond(N, t);
    if (hits !== N) throw new Error(`expected ${N} hits, got ${hits}`);

    const unknown = ids.map((id) => `x${id}`);
    t = process.hrtime.bigint();
    for (let i = 0; i < N; i += LOOKUP_BATCH) await store.fingerprints('bench', unknown.slice(i, i + LOOKUP_BATCH));
    results['fingerprint lookups, batches of 500 (misses) ids/s'] = opsPerSecond(N, t);

    const singles = 20_000;
    t = process.hrtime.bigint();
    for (let i = 0; i < singles; i++) await store.ledgerEntry('bench', ids[(i * 7919) % N] ?? '');
    results['ledgerEntry single lookups ops/s'] = opsPerSecond(singles, t);

    t = process.hrtime.bigint();
    let live = 0;
    for await (const page of store.liveRemoteIdPages('bench')) live += page.length;
    results['liveRemoteIds scan ids/s'] = opsPerSecond(live, t);

    const checkpoints = 2000;
    t = process.hrtime.bigint();
    for (let i = 0; i < checkpoints; i++) {
      await store.recordAcknowledged({ sync: 'bench', remoteId: ids[i] ?? '', fingerprint: 'again', recordId: `rec-${i}` });
      await store.checkpoint('bench', { value: String(i) });
    }
    results['checkpoint with one ack (worst case) ops/s'] = opsPerSecond(checkpoints, t);

    const cycles = 2000;
    t = process.hrtime.bigint();
    for (let i = 0; i < cycles; i++) {
      await store.acquireLock('bench', 'me', 60_000);
      await store.renewLock('bench', 'me', 60_000);
      await store.releaseLock('bench', 'me');
    }
    results['lock acquire+renew+release cycles/s'] = opsPerSecond(cycles, t);
    return results;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run();
  for (const [name, value] of Object.entries(results)) console.log(`${name.padEnd(58)} ${value.toLocaleString('en-US')}`);
}

/**
 * The apply half of the per-record pipeline (src/pipeline/apply-plan.ts):
 * each step of a plan carried out once, in read order — pushed, counted,
 * dead-lettered, logged — and every unit settled; a stopping run starts no
 * push but settles what was decided without the ledger.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoadedSync } from '../../../src/config/index.js';
import type { CompiledMapping, Found } from '../../../src/mapping/index.js';
import { planUnits } from '../../../src/mapping/plan.js';
import { PlanApplier, type AppliedBatch } from '../../../src/pipeline/apply-plan.js';
import type { BuildFailure, ReadyUnit } from '../../../src/pipeline/build-units.js';
import { Checkpointer } from '../../../src/pipeline/checkpointer.js';
import { DuplicateIds } from '../../../src/pipeline/duplicate-ids.js';
import { RunStop } from '../../../src/pipeline/run-stop.js';
import { PlainSeenIds } from '../../../src/pipeline/seen-ids.js';
import type { Unit } from '../../../src/pipeline/units.js';
import type { Pusher, PushJob } from '../../../src/sink/index.js';
import { emptyCounts, openStateStore, type FingerprintHit, type StateStore } from '../../../src/state/index.js';

const SYNC = { name: 'deals', target: { type: 'row', map: { id: 'id', name: 'name' } } } as unknown as LoadedSync;

/** A pusher that answers every push as created, at once, and keeps what it was sent. */
function fakePusher(): { pusher: Pusher; pushed: string[] } {
  const pushed: string[] = [];
  const pusher = {
    waitForCapacity: () => undefined,
    push: (request: PushJob) => {
      pushed.push(request.remoteId);
      return Promise.resolve({ ok: true, status: 'created', recordId: `r-${request.remoteId}` });
    },
    onIdle: () => Promise.resolve(),
  } as unknown as Pusher;
  return { pusher, pushed };
}

describe('PlanApplier', () => {
  let store: StateStore;
  beforeEach(async () => {
    store = await openStateStore('sqlite::memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  /** A batch of units, each built (`id:print`), not built (`!`), unchanged at source (`=id`). */
  function setUp(cells: string[], controller = new AbortController()) {
    const counts = emptyCounts();
    const log = pino({ level: 'silent' });
    const checkpointer = new Checkpointer(store, SYNC.name, null, counts, log);
    const taken = new DuplicateIds(log);
    const seen = new PlainSeenIds();
    const stop = new RunStop(controller.signal);
    const { pusher, pushed } = fakePusher();
    const settled = { count: 0 };
    const batch: AppliedBatch & { found: Found[]; remoteIds: (string | undefined)[]; prints: (string | undefined)[]; ready: (ReadyUnit | undefined)[]; failures: (BuildFailure | undefined)[] } = {
      units: [],
      tickets: [],
      found: [],
      remoteIds: [],
      prints: [],
      ready: [],
      failures: [],
    };
    cells.forEach((cell, i) => {
      const unit: Unit = { input: { id: cell }, origin: `deals.csv:${i + 2}` };
      const ticket = checkpointer.begin(undefined);
      (batch.units as Unit[]).push(unit);
      (batch.tickets as number[]).push(ticket);
      const [remoteId, print] = cell.split(':');
      if (cell === '!') {
        batch.found.push('not built');
        batch.remoteIds.push(undefined);
        batch.prints.push(undefined);
        batch.ready.push(undefined);
        batch.failures.push({ ok: false, reason: 'name: expected string, received undefined', field: 'name' });
      } else if (cell.startsWith('=')) {
        batch.found.push('unchanged at source');
        batch.remoteIds.push(cell.slice(1));
        batch.prints.push(undefined);
        batch.ready.push(undefined);
        batch.failures.push(undefined);
      } else {
        const body = { id: remoteId, name: remoteId };
        batch.found.push('built');
        batch.remoteIds.push(remoteId);
        batch.prints.push(print);
        batch.ready.push({ unit, ticket, remoteId: remoteId!, body, json: JSON.stringify(body), print: print! });
        batch.failures.push(undefined);
      }
    });
    const applier = new PlanApplier({
      store,
      sync: SYNC,
      mapping: {} as CompiledMapping,
      runId: null,
      dryRun: false,
      counts,
      log,
      checkpointer,
      pusher,
      stop,
      sourceId: 'src',
      seen,
      taken,
      onSample: undefined,
      onProgress: () => void settled.count++,
    });
    return { applier, batch, counts, checkpointer, taken, seen, pushed, settled };
  }

  it('carries out each step once and settles every unit', async () => {
    const ledger = new Map<string, FingerprintHit>([['c', { status: 'pushed', fingerprint: 'fc', recordId: 'r-c' }]]);
    const { applier, batch, counts, checkpointer, taken, seen, pushed, settled } = setUp(['a:fa', '!', 'a:fx', '=b', 'c:fc', 'd:fd']);
    const plan = planUnits(batch, ledger, taken);
    expect(await applier.apply(batch, plan, ledger)).toBe(true);
    await applier.drain();
    expect(pushed).toEqual(['a', 'd']);
    expect(counts).toMatchObject({ created: 2, pushed: 2, failed: 1, duplicates: 1, unchanged: 2 });
    expect(taken.examples).toEqual([{ remoteId: 'a', origin: 'deals.csv:4' }]);
    expect(['a', 'b', 'c', 'd'].map((id) => seen.has(id))).toEqual([true, true, true, true]);
    expect(checkpointer.tracker.pending).toBe(0);
    expect(settled.count).toBe(6);
    const [failure] = await store.failures({ sync: 'deals' });
    expect(failure).toMatchObject({ kind: 'invalid', origin: 'deals.csv:3' });
    expect(await store.ledgerEntry('deals', 'd')).toMatchObject({ status: 'pushed', fingerprint: 'fd', recordId: 'r-d' });
  });

  it('starts no push once the run is stopping, and leaves the ledger\'s verdicts unfinished', async () => {
    const controller = new AbortController();
    const ledger = new Map<string, FingerprintHit>([['c', { status: 'pushed', fingerprint: 'fc', recordId: 'r-c' }]]);
    const { applier, batch, counts, taken, pushed, settled } = setUp(['a:fa', '!', 'a:fx', '=b', 'c:fc'], controller);
    controller.abort();
    expect(await applier.apply(batch, planUnits(batch, ledger, taken), ledger)).toBe(false);
    await applier.drain();
    expect(pushed).toEqual([]);
    // Decided without the ledger, and settled: the invalid unit, the duplicate, the unit unchanged at source.
    expect(counts).toMatchObject({ failed: 1, duplicates: 1, unchanged: 1, created: 0 });
    expect(settled.count).toBe(3);
  });
});

/**
 * Slices of the event loop while a run reads and prepares a batch
 * (src/pipeline/fast/loop-slices.ts): answers to pushes are taken in, and the
 * requests after them sent, while a batch is still being mapped — however
 * few units the batch has, when each is slow.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoopSlices } from '../../../../src/pipeline/fast/loop-slices.js';
import { prepareSync, selectSyncs } from '../../../../src/pipeline/prepare.js';
import { runSync } from '../../../../src/pipeline/run-sync.js';
import { SAMPLE_UNITS } from '../../../../src/pipeline/target-setup.js';
import { loadProject } from '../../../../src/runtime/project.js';
import { openStateStore } from '../../../../src/state/index.js';
import type { StateStore } from '../../../../src/state/index.js';
import { FakeService } from '../../sink/fake-service.js';

describe('LoopSlices', () => {
  it('gives the loop a turn only once the slice is spent, then starts a new slice', async () => {
    let time = 0;
    let turns = 0;
    const slices = new LoopSlices(1, () => time, async () => void turns++);
    time = 0.9;
    expect(slices.due()).toBeUndefined();
    time = 1;
    await slices.due();
    expect(turns).toBe(1);
    time = 1.5;
    expect(slices.due()).toBeUndefined();
    time = 2;
    await slices.due();
    expect(turns).toBe(2);
  });

  it('a turn lets immediates queued while it waits run before the next slice (undici writes requests in them)', async () => {
    const order: string[] = [];
    const turn = new LoopSlices(0).due();
    // As undici queues a request's write when an answer read in the poll phase frees its slot.
    setImmediate(() => order.push('request written'));
    await turn;
    order.push('next slice');
    expect(order).toEqual(['request written', 'next slice']);
  });

  it('a turn lets a macrotask queued before it run', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    await new LoopSlices(0).due();
    expect(ran).toBe(true);
  });
});

const CSV = readFileSync(resolve(import.meta.dirname, '../../../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const [HEADER, ...LINES] = CSV.split('\r\n').filter((l) => l.length > 0);
/** Fewer than the 32 units the processor used to map between two turns, whatever they cost. */
const AFTER_SAMPLE = 30;

describe('a run preparing a batch of slow units', () => {
  let dir: string;
  let store: StateStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-loop-slices-'));
    store = await openStateStore('sqlite::memory:');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers pushes and sends the next ones between its units, and lands every record once', async () => {
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: "http://127.0.0.1:9", apiKey: unused }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: opportunity_id }
    target: { type: row, source: { name: crm }, objectType: { name: deal }, map: { id: opportunity_id, name: opportunity_id, public: true, fields: { stage: deal_stage } } }
`,
    );
    writeFileSync(join(dir, 'deals.csv'), [HEADER, ...LINES.slice(0, SAMPLE_UNITS + AFTER_SAMPLE)].join('\n') + '\n');
    const loaded = await loadProject(join(dir, 'ferry.yaml'));
    const prepared = await prepareSync(loaded, selectSyncs(loaded, ['deals'])[0]!);

    // What happened, in order: a unit mapped (after the sample), or a push sent.
    const events: ('map' | 'push')[] = [];
    let mapped = 0;
    // The run maps each unit through evaluateEager (evaluate is its promise-only form, used by the setup).
    const evaluate = prepared.mapping.evaluateEager.bind(prepared.mapping);
    prepared.mapping.evaluateEager = (input) => {
      // The first SAMPLE_UNITS are mapped by the target's setup; the batch after them is slow.
      if (++mapped > SAMPLE_UNITS) {
        events.push('map');
        const until = performance.now() + 1;
        while (performance.now() < until); // a slow unit: longer than a slice
      }
      return evaluate(input);
    };
    const service = new FakeService();
    const pushed = new Map<string, number>();
    const answer = service.handler;
    // Answers come back as I/O does: on a later turn of the event loop.
    service.handler = (kind, body, n) => {
      events.push('push');
      pushed.set(String(body.id), (pushed.get(String(body.id)) ?? 0) + 1);
      return new Promise((done) => setImmediate(() => done(answer(kind, body, n))));
    };

    const summary = await runSync(prepared, { store, service }, {
      signal: new AbortController().signal,
      logger: pino({ level: 'silent' }),
      concurrency: 2,
      maxRequestsPerSecond: 100_000,
      maxAttempts: 1,
    });

    expect(summary.counts).toMatchObject({ read: SAMPLE_UNITS + AFTER_SAMPLE, created: SAMPLE_UNITS + AFTER_SAMPLE, failed: 0 });
    expect(pushed.size).toBe(SAMPLE_UNITS + AFTER_SAMPLE);
    expect([...pushed.values()].every((n) => n === 1)).toBe(true);
    // Pushes of the sampled batch still waiting went out while the slow batch was mapped, not after it.
    const firstMap = events.indexOf('map');
    const lastMap = events.lastIndexOf('map');
    expect(events.slice(firstMap, lastMap).filter((e) => e === 'push').length).toBeGreaterThan(0);
  });
});

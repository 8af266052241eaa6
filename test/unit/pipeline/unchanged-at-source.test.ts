/**
 * "Unchanged" decided before mapping (src/pipeline/source-fingerprint.ts):
 * a no-op re-run maps nothing, and it stays exact — an edited record is
 * mapped and pushed alone, a mapping change maps every record and pushes
 * exactly those whose bodies change, a clock-reading mapping never skips.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareSync, selectSyncs } from '../../../src/pipeline/prepare.js';
import type { PreparedSync } from '../../../src/pipeline/prepare.js';
import { loadProject } from '../../../src/runtime/project.js';
import { runSync } from '../../../src/pipeline/run-sync.js';
import { SAMPLE_UNITS } from '../../../src/pipeline/target-setup.js';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { SqliteStateStore } from '../../../src/state/sqlite/sqlite-state-store.js';
import { FakeService } from '../sink/fake-service.js';

const PIPELINE = readFileSync(resolve(import.meta.dirname, '../../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const [HEADER, ...LINES] = PIPELINE.split('\r\n').filter((l) => l.length > 0);
const ROWS = LINES.slice(0, 300);
/** Rows sync map their first units anyway, to infer the object type's field types. */
const SAMPLED = SAMPLE_UNITS;

const config = (extraFields = '', name = 'opportunity_id') => `version: 1
service: { baseUrl: "http://127.0.0.1:9", apiKey: unused }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: opportunity_id }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map:
        id: opportunity_id
        name: ${name}
        public: true
        fields:
          stage: deal_stage
${extraFields}`;

/** One run of the sync, pushing into `service` (maxAttempts 1: any failure shows in the counts). */
function syncOnce(prepared: PreparedSync, store: StateStore, service: FakeService) {
  return runSync(prepared, { store, service }, {
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    concurrency: 4,
    maxRequestsPerSecond: 100_000,
    maxAttempts: 1,
  });
}

/** The ledger looked at on the store's own connection, and on its reader thread from the first look on. */
const STORES: [string, (dir: string) => Promise<StateStore>][] = [
  ['in-memory state', () => openStateStore('sqlite::memory:')],
  ['a state file read on a thread', async (dir) => new SqliteStateStore(join(dir, 'state.db'), { threadsAfter: 0 })],
];

describe.each(STORES)('unchanged records decided before mapping, %s', (_name, openStore) => {
  let dir: string;
  let store: StateStore;
  // The fake answers every push 'created'; `pushed` counts what was sent.
  const service = new FakeService();
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-source-print-'));
    store = await openStore(dir);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the sync as configured now; `mapped` counts the records the mapping evaluated. */
  async function run(yaml: string, lines: readonly string[], header = HEADER!) {
    writeFileSync(join(dir, 'ferry.yaml'), yaml);
    writeFileSync(join(dir, 'deals.csv'), [header, ...lines].join('\n') + '\n');
    const loaded = await loadProject(join(dir, 'ferry.yaml'));
    const prepared: PreparedSync = await prepareSync(loaded, selectSyncs(loaded, ['deals'])[0]!);
    let mapped = 0;
    // The run maps each record through evaluateEager (evaluate is its promise-only form).
    const evaluate = prepared.mapping.evaluateEager.bind(prepared.mapping);
    prepared.mapping.evaluateEager = (input) => (mapped++, evaluate(input));
    const pushesBefore = service.pushes;
    const summary = await syncOnce(prepared, store, service);
    return { counts: summary.counts, mapped, pushed: service.pushes - pushesBefore };
  }

  it('maps nothing on a no-op re-run, and only the edited record after an edit', async () => {
    expect(await run(config(), ROWS)).toMatchObject({ counts: { created: 300 }, mapped: 300, pushed: 300 });
    expect(await run(config(), ROWS)).toMatchObject({ counts: { unchanged: 300, read: 300 }, mapped: SAMPLED, pushed: 0 });

    const edited = ROWS.map((line, i) => (i === 250 ? line.replace(/,(Won|Lost|Engaging|Prospecting),/, ',Lost,') : line));
    expect(edited[250]).not.toBe(ROWS[250]);
    expect(await run(config(), edited)).toMatchObject({ counts: { pushed: 1, unchanged: 299 }, mapped: SAMPLED + 1, pushed: 1 });
    expect(await run(config(), edited)).toMatchObject({ counts: { unchanged: 300 }, mapped: SAMPLED, pushed: 0 });
  });

  it('maps every record after a mapping change, pushes exactly those whose bodies change, then skips again', async () => {
    await run(config(), ROWS);
    const withValues = ROWS.filter((l) => l.split(',')[7] !== '').length;
    expect(withValues).toBeGreaterThan(0);
    expect(withValues).toBeLessThan(300);
    const changed = config('          value: close_value\n');
    expect(await run(changed, ROWS)).toMatchObject({ counts: { pushed: withValues, unchanged: 300 - withValues }, mapped: 300, pushed: withValues });
    // The unchanged bodies were vouched for with the new mapping: no mapping needed any more.
    expect(await run(changed, ROWS)).toMatchObject({ counts: { unchanged: 300 }, mapped: SAMPLED, pushed: 0 });
  });

  it('maps every record again when the file header or a source option changes, even where the line text does not', async () => {
    await run(config(), ROWS);
    // The mapping reads neither column: the bodies stay the same, but the records' data changed.
    const renamed = HEADER!.replace('account', 'client');
    expect(renamed).not.toBe(HEADER);
    expect(await run(config(), ROWS, renamed)).toMatchObject({ counts: { unchanged: 300 }, mapped: 300, pushed: 0 });
    expect(await run(config(), ROWS, renamed)).toMatchObject({ counts: { unchanged: 300 }, mapped: SAMPLED, pushed: 0 });
    const cast = config().replace('primaryKey: opportunity_id }', 'primaryKey: opportunity_id, cast: true }');
    expect(cast).not.toBe(config());
    expect(await run(cast, ROWS, renamed)).toMatchObject({ counts: { unchanged: 300 }, mapped: 300, pushed: 0 });
  });

  it('counts a repeated id as a duplicate on a no-op re-run too, not as unchanged', async () => {
    const repeated = [...ROWS, ROWS[0]!];
    expect(await run(config(), repeated)).toMatchObject({ counts: { created: 300, duplicates: 1 }, pushed: 300 });
    expect(await run(config(), repeated)).toMatchObject({ counts: { unchanged: 300, duplicates: 1, read: 301 }, mapped: SAMPLED, pushed: 0 });
  });

  it('pushes an edited record once when its id comes again in the next batch, looked at before the edit landed', async () => {
    await run(config(), ROWS);
    // Row 200's edit is pushed while the next batch (rows 256-299, and the copy of row 200 with its old text) is looked at.
    const edited = ROWS[200]!.replace(/,(Won|Lost|Engaging|Prospecting),/, ',Lost,');
    expect(edited).not.toBe(ROWS[200]);
    const lines = [...ROWS.slice(0, 200), edited, ...ROWS.slice(201), ROWS[200]!];
    expect(await run(config(), lines)).toMatchObject({ counts: { pushed: 1, unchanged: 299, duplicates: 1, read: 301 }, pushed: 1 });
    expect(await run(config(), lines)).toMatchObject({ counts: { unchanged: 300, duplicates: 1 }, pushed: 0 });
  });

  it('asks the ledger once, not per batch, while it holds no record of the sync as pushed', async () => {
    const asked = countLedgerQueries(store);
    const repeated = [...ROWS, ROWS[0]!];
    expect(await run(config(), repeated)).toMatchObject({ counts: { created: 300, duplicates: 1 }, pushed: 300 });
    expect(asked).toEqual({ hasLive: 1, perBatch: 0 });
    expect(await run(config(), repeated)).toMatchObject({ counts: { unchanged: 300, duplicates: 1 }, pushed: 0 });
    expect(asked.hasLive).toBe(2);
    expect(asked.perBatch).toBeGreaterThan(0);
  });

  it('never skips mapping when the mapping reads the clock; skips the per-batch queries while the ledger holds nothing', async () => {
    const asked = countLedgerQueries(store);
    const clock = config('', `'"deal " & opportunity_id & " " & $string($now() = "x")'`);
    expect(await run(clock, ROWS)).toMatchObject({ counts: { created: 300 }, pushed: 300 });
    expect(asked).toEqual({ hasLive: 1, perBatch: 0 });
    expect(await run(clock, ROWS)).toMatchObject({ counts: { unchanged: 300 }, mapped: 300, pushed: 0 });
    expect(asked.perBatch).toBeGreaterThan(0);
  });
});

/** Counts the store's look for any live record and its per-batch ledger queries. */
function countLedgerQueries(store: StateStore): { hasLive: number; perBatch: number } {
  const asked = { hasLive: 0, perBatch: 0 };
  const hasLive = store.hasLive.bind(store);
  const fingerprints = store.fingerprints.bind(store);
  const unchangedAtSource = store.unchangedAtSource.bind(store);
  store.hasLive = (sync) => (asked.hasLive++, hasLive(sync));
  store.fingerprints = (sync, ids) => (asked.perBatch++, fingerprints(sync, ids));
  store.unchangedAtSource = (sync, ids, prints) => (asked.perBatch++, unchangedAtSource(sync, ids, prints));
  return asked;
}

describe('unchanged JSON Lines records read on a parse thread', () => {
  let dir: string;
  let store: StateStore;
  const service = new FakeService();
  const setting = process.env.FERRY_JSONL_PARSE_THREAD;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-source-print-jsonl-'));
    store = await openStateStore('sqlite::memory:');
    process.env.FERRY_JSONL_PARSE_THREAD = 'on';
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (setting === undefined) delete process.env.FERRY_JSONL_PARSE_THREAD;
    else process.env.FERRY_JSONL_PARSE_THREAD = setting;
  });

  const columns = HEADER!.split(',');
  const asJsonl = (lines: readonly string[]): string => lines.map((line) => JSON.stringify(Object.fromEntries(line.split(',').map((v, i) => [columns[i], v])))).join('\n') + '\n';
  const yaml = config().replace('{ type: csv, path: deals.csv, primaryKey: opportunity_id }', '{ type: jsonl, path: deals.jsonl, primaryKey: opportunity_id }');

  /** Runs the sync; `parsed` counts the records' lines JSON.parse was given in this thread (the parse thread has its own JSON). */
  async function run(lines: readonly string[]) {
    writeFileSync(join(dir, 'ferry.yaml'), yaml);
    writeFileSync(join(dir, 'deals.jsonl'), asJsonl(lines));
    const loaded = await loadProject(join(dir, 'ferry.yaml'));
    const prepared = await prepareSync(loaded, selectSyncs(loaded, ['deals'])[0]!);
    const pushesBefore = service.pushes;
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      if (typeof text === 'string' && text.startsWith('{"opportunity_id"')) parsed++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      const summary = await syncOnce(prepared, store, service);
      return { counts: summary.counts, parsed, pushed: service.pushes - pushesBefore };
    } finally {
      JSON.parse = parse;
    }
  }

  it('parses only what discover() and type inference sample on a no-op re-run, and pushes an edited line alone', async () => {
    expect(yaml).toContain('type: jsonl');
    // Each run's discover() samples the file too (for field types), reading it in this thread.
    expect(await run(ROWS)).toMatchObject({ counts: { created: 300 }, parsed: 300 + 300, pushed: 300 });
    expect(await run(ROWS)).toMatchObject({ counts: { unchanged: 300, read: 300 }, parsed: 300 + SAMPLED, pushed: 0 });
    const edited = ROWS.map((line, i) => (i === 250 ? line.replace(/,(Won|Lost|Engaging|Prospecting),/, ',Lost,') : line));
    expect(edited[250]).not.toBe(ROWS[250]);
    expect(await run(edited)).toMatchObject({ counts: { pushed: 1, unchanged: 299 }, parsed: 300 + SAMPLED + 1, pushed: 1 });
    expect(await run(edited)).toMatchObject({ counts: { unchanged: 300 }, parsed: 300 + SAMPLED, pushed: 0 });
  });
});

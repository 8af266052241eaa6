/**
 * Whole syncs, CSV → rows, into the emulator over HTTP: first run, re-run,
 * edits, mapping changes, dead-letter and retry, faults, deletes and
 * incremental cursors. The data is the first rows of the real CRM pipeline.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ERROR_CATALOGUE } from '../../../src/sdk/errors.js';
import { Pusher } from '../../../src/sink/pusher.js';
import { Harness, readRows } from './harness.js';

const PIPELINE = readFileSync(resolve(import.meta.dirname, '../../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const [HEADER, ...LINES] = PIPELINE.split('\r\n').filter((l) => l.length > 0);

function csv(lines: readonly string[]): string {
  return [HEADER, ...lines].join('\r\n') + '\r\n';
}

const DEALS_SYNC = (extraMap = '', options = '') => `  - name: deals
    source:
      type: csv
      path: data/deals.csv
      primaryKey: opportunity_id
${options}    target:
      type: row
      source: { name: crm, displayName: CRM }
      objectType: { name: deal, displayName: Deal }
      map:
        id: opportunity_id
        name: "account ? account & ' – ' & product : product"
        public: true
        fields:
          stage: deal_stage
          agent: sales_agent
          product: product
${extraMap}`;

describe('a CSV → rows sync into the emulator', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  it('lands every record, then re-runs with zero requests', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 120)));
    h.writeConfig(DEALS_SYNC());
    const first = await h.run();
    expect(first.summaries[0]).toMatchObject({ status: 'succeeded', exitCode: 0, counts: { read: 120, created: 120, failed: 0 } });
    expect(Harness.writes(first.requests)).toHaveLength(120);

    const rows = await readRows(h.client, 'crm', 'deal');
    expect(rows.size).toBe(120);
    const [id, , product, account, stage] = LINES[0]!.split(',');
    expect(rows.get(id!)).toMatchObject({ name: `${account} – ${product}`, fields: { stage: { value: stage, fieldType: 'string' } } });

    const second = await h.run();
    expect(second.summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: 120, unchanged: 120, created: 0, updated: 0 } });
    expect(second.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
  });

  it('tells the pusher once that the source has ended, before the last batch of records goes', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 600)));
    h.writeConfig(DEALS_SYNC());
    const pushes = vi.spyOn(Pusher.prototype, 'push');
    const ended = vi.spyOn(Pusher.prototype, 'endOfInput');
    try {
      const run = await h.run();
      expect(run.summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: 600, created: 600 } });
      expect(ended).toHaveBeenCalledTimes(1);
      const signalled = ended.mock.invocationCallOrder[0]!;
      // 600 = 2 × 256 + 88: the last batch is read after the end was seen, and its records go after the signal.
      expect(pushes.mock.invocationCallOrder.filter((order) => order > signalled).length).toBeGreaterThanOrEqual(88);
      expect(pushes).toHaveBeenCalledTimes(600);
    } finally {
      pushes.mockRestore();
      ended.mockRestore();
    }
  });

  it('says once when the configured rate bound, not the service, set the pace', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 150)));
    const warnings = async (ceiling: number): Promise<{ msg: string; ceiling?: number; requests?: number }[]> => {
      h.write('ferry.yaml', readFileSync(h.writeConfig(DEALS_SYNC()), 'utf8').replace('maxRequestsPerSecond: 2000', `maxRequestsPerSecond: ${ceiling}`));
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => void (lines.push(chunk.toString('utf8')), done()) });
      const run = await h.run({ logger: pino({ level: 'warn' }, sink) });
      expect(run.summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: 150 } });
      return lines.map((l) => JSON.parse(l) as { msg: string; ceiling?: number; requests?: number }).filter((l) => l.msg.includes('configured rate bound'));
    };
    // 150 creates at 100 a second: nearly every request waits for the ceiling.
    const held = await warnings(100);
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ ceiling: 100, requests: 150 });
    expect(held[0]!.msg).toContain('raise service.maxRequestsPerSecond');
    // Far above what the emulator answers: nothing to say. (Reset, so that the 150 records are sent again.)
    await h.withState(async (store) => store.reset('deals'));
    expect(await warnings(1_000_000)).toEqual([]);
    expect(Harness.writes(h.requests)).toHaveLength(150);
  });

  it('says what concurrency and rate the push settled on and why, and keeps it per service for the next run', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 300)));
    h.writeConfig(DEALS_SYNC());
    const first = await h.run();
    // The harness bounds the concurrency at 4; the in-process emulator's round trips grow with what is in flight.
    const limits = first.summaries[0]!.limits!;
    expect(limits.concurrency).toBeGreaterThanOrEqual(1);
    expect(limits.concurrency).toBeLessThanOrEqual(4);
    expect(['bound', 'latency', 'saturated', 'growing', 'client']).toContain(limits.concurrencyReason);
    expect(limits).toMatchObject({ rateReason: 'unlimited' });
    const [learnt] = await h.withState((store) => store.serviceLimits());
    expect(learnt).toMatchObject({ service: h.proxyUrl, concurrency: limits.concurrency, concurrencyReason: limits.concurrencyReason, rateReason: 'unlimited' });
    // A run that sends too little to have learnt anything keeps what was learnt before.
    h.write('data/deals.csv', csv(LINES.slice(0, 5)));
    await h.withState(async (store) => store.reset('deals'));
    await h.run();
    expect(await h.withState((store) => store.serviceLimits())).toEqual([learnt]);
  });

  it('re-pushes an edited record alone, and exactly the records a mapping change touches', async () => {
    const lines = LINES.slice(0, 60);
    h.write('data/deals.csv', csv(lines));
    h.writeConfig(DEALS_SYNC());
    await h.run();

    const edited = lines.map((line, i) => (i === 7 ? line.replace(/,(Won|Lost|Engaging|Prospecting),/, ',Lost,') : line));
    expect(edited[7]).not.toBe(lines[7]);
    h.write('data/deals.csv', csv(edited));
    const afterEdit = await h.run();
    expect(afterEdit.summaries[0]!.counts).toMatchObject({ updated: 1, unchanged: 59 });
    const writes = Harness.writes(afterEdit.requests);
    expect(writes).toHaveLength(1);
    expect((await readRows(h.client, 'crm', 'deal')).get(lines[7]!.split(',')[0]!)).toMatchObject({ fields: { stage: { value: 'Lost' } } });

    // A new field mapped from close_value only changes records that have one (open deals are blank).
    h.writeConfig(DEALS_SYNC('          value: close_value\n'));
    const withValues = edited.filter((l) => l.split(',')[7] !== '').length;
    const afterMapping = await h.run();
    expect(afterMapping.summaries[0]!.counts).toMatchObject({ updated: withValues, unchanged: 60 - withValues });
    expect(Harness.writes(afterMapping.requests)).toHaveLength(withValues);
    // The object type gained the field; the existing ones are still there.
    const { sources } = await h.client.listSources({ name: 'crm' });
    const { objectTypes } = await h.client.listObjectTypes({ sourceId: sources[0]!.id });
    expect(objectTypes[0]!.fieldDefinitions.map((f) => f.name).sort()).toEqual(['agent', 'product', 'stage', 'value']);
  });

  it('dead-letters invalid records with reason and origin, exits 2, and retries them after a fix', async () => {
    const lines = LINES.slice(0, 20);
    // Two records lose their id: they cannot be pushed.
    const broken = lines.map((l, i) => (i === 3 || i === 11 ? l.replace(/^[^,]+/, '') : l));
    h.write('data/deals.csv', csv(broken));
    h.writeConfig(DEALS_SYNC());
    const run = await h.run();
    expect(run.summaries[0]).toMatchObject({ status: 'partial', exitCode: 2, counts: { created: 18, failed: 2 } });

    const failures = await h.withState((store) => store.failures({ sync: 'deals' }));
    expect(failures).toHaveLength(2);
    expect(failures.map((f) => f.origin).sort()).toEqual(['data/deals.csv:13', 'data/deals.csv:5']);
    expect(failures[0]!.reason).toMatch(/map\.id produced nothing/);

    // The fix: ids fall back to a stable synthetic key; retry re-maps the stored source records.
    h.writeConfig(DEALS_SYNC().replace('id: opportunity_id', `id: "opportunity_id ? opportunity_id : 'missing-' & sales_agent & '-' & engage_date"`));
    const retry = await h.run({ retryFailures: true });
    expect(retry.summaries[0]).toMatchObject({ exitCode: 0, counts: { created: 2, failed: 0 } });
    expect(await h.withState((store) => store.failureCount('deals'))).toBe(0);
    expect((await readRows(h.client, 'crm', 'deal')).size).toBe(20);
  });

  it('fails a run on an unexpected error (a bug) as FERRY_INTERNAL, not a source error, and keeps what landed', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 40)));
    h.writeConfig(DEALS_SYNC());
    let updates = 0;
    const buggy = await h.run({
      progress: () => ({
        update: () => {
          if (++updates === 10) throw new TypeError("Cannot read properties of undefined (reading 'x')");
        },
        stop: () => undefined,
      }),
    });
    const failed = buggy.summaries[0]!;
    expect(failed).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(failed.error).toMatch(/^FERRY_INTERNAL: unexpected error in sync "deals": Cannot read properties/);
    expect(failed.error).not.toContain('FERRY_SOURCE_READ_FAILED');
    expect(ERROR_CATALOGUE.FERRY_INTERNAL).toMatchObject({ exitCode: 3, retryable: false });
    expect(failed.counts.created).toBeGreaterThan(0);

    const fixed = await h.run();
    const counts = fixed.summaries[0]!.counts;
    expect(fixed.summaries[0]!.exitCode).toBe(0);
    expect(counts.created + counts.updated + counts.unchanged).toBe(40);
    expect((await readRows(h.client, 'crm', 'deal')).size).toBe(40);
  });

  it('reports a plain error thrown by a source while reading as FERRY_SOURCE_READ_FAILED', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 5)));
    h.write(
      'broken-source.mjs',
      `export default {
  kind: 'source', name: 'broken', sdkVersion: 1,
  options: { safeParse: (o) => ({ success: true, data: o }), parse: (o) => o },
  async discover() { return []; },
  async *read() { yield { data: { opportunity_id: 'a', deal_stage: 'Won' }, origin: { stream: 'broken', key: 'a' } }; throw new Error('socket hang up'); },
};
`,
    );
    h.writeConfig(DEALS_SYNC().replace(/type: csv\n\s+path: data\/deals.csv\n\s+primaryKey: opportunity_id/, 'type: ./broken-source.mjs'));
    const run = await h.run();
    expect(run.summaries[0]!.error).toMatch(/FERRY_SOURCE_READ_FAILED: the source of sync "deals" failed while being read: socket hang up/);
  });

  it('lands every record through injected 429s, 500s and dropped connections', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 150)));
    h.writeConfig(DEALS_SYNC(), { maxAttempts: 12 });
    h.setFaults({ rate429: 0.15, retryAfterSeconds: 0, rate500: 0.1, dropRate: 0.05, seed: 7 });
    const run = await h.run();
    expect(run.summaries[0]).toMatchObject({ status: 'succeeded', exitCode: 0, counts: { created: 150, failed: 0 } });
    h.setFaults({});
    expect((await readRows(h.client, 'crm', 'deal')).size).toBe(150);
    // Faults cost retries, never duplicates or losses: a clean re-run has nothing to send.
    const again = await h.run();
    expect(again.summaries[0]!.counts).toMatchObject({ unchanged: 150, created: 0, updated: 0 });
  });

  it('mirrors deletes, and refuses a mass deletion unless forced', async () => {
    const lines = LINES.slice(0, 40);
    h.write('data/deals.csv', csv(lines));
    h.writeConfig(DEALS_SYNC('', '    deletes: mirror\n    maxDeletePercent: 10\n'));
    await h.run();

    h.write('data/deals.csv', csv(lines.slice(0, 38)));
    // A dry run counts what would go and deletes nothing.
    const dry = await h.run({ dryRun: true });
    expect(dry.summaries[0]).toMatchObject({ wouldDelete: 2 });
    expect(dry.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    const small = await h.run();
    expect(small.summaries[0]!.counts).toMatchObject({ deleted: 2, unchanged: 38 });
    expect((await readRows(h.client, 'crm', 'deal')).size).toBe(38);

    h.write('data/deals.csv', csv(lines.slice(0, 5)));
    const refused = await h.run();
    expect(refused.summaries[0]).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(refused.summaries[0]!.error).toMatch(/FERRY_MASS_DELETE_REFUSED/);
    expect((await readRows(h.client, 'crm', 'deal')).size).toBe(38);

    // Each DELETE answered after 30 ms: deletes sent one after another never overlap, ones sent at once do.
    h.holdAnswerMs.DELETE = 30;
    const forced = await h.run({ forceDeletes: true });
    expect(forced.summaries[0]!.counts.deleted).toBe(33);
    expect((await readRows(h.client, 'crm', 'deal')).size).toBe(5);
    // The deletes go as many at once as the sync's concurrency allows, not one after another.
    expect(forced.requests.filter((r) => r.method === 'DELETE')).toHaveLength(33);
    expect(h.maxInFlight.DELETE).toBeGreaterThan(1);
  });

  it('stops on a refused key with exit 3 and pushes nothing more', async () => {
    h.write('data/deals.csv', csv(LINES.slice(0, 10)));
    h.writeConfig(DEALS_SYNC());
    process.env.TEST_API_KEY = 'sk_live_not_a_key';
    const summaries = await (async () => {
      const { runProject } = await import('../../../src/pipeline/run-project.js');
      const pino = (await import('pino')).default;
      return runProject({ configFile: `${h.dir}/ferry.yaml`, syncNames: [], logger: pino({ level: 'silent' }) });
    })();
    expect(summaries[0]).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(summaries[0]!.error).toMatch(/FERRY_SERVICE_AUTH/);
    expect(summaries[0]!.error).not.toContain('sk_live_not_a_key');
  });
});

describe('incremental syncs', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  const EVENTS = `  - name: events
    source:
      type: csv
      path: data/events.csv
      primaryKey: id
    incremental: { cursor: updated_at }
    target:
      type: row
      source: { name: app }
      objectType: { name: event, fields: { kind: string } }
      map:
        id: id
        name: kind
        public: true
        fields: { kind: kind }
`;

  it('reads only records past the stored cursor, keeping ties and full precision', async () => {
    h.write('data/events.csv', 'id,kind,updated_at\n1,a,2024-03-01T10:00:00.000001Z\n2,b,2024-03-01T10:00:00.000002Z\n3,c,2024-03-01T10:00:00.000002Z\n');
    h.writeConfig(EVENTS);
    const first = await h.run();
    expect(first.summaries[0]!.counts).toMatchObject({ read: 3, created: 3 });
    expect(first.summaries[0]!.cursor).toMatchObject({ value: '2024-03-01T10:00:00.000002Z' });

    h.write(
      'data/events.csv',
      'id,kind,updated_at\n1,a,2024-03-01T10:00:00.000001Z\n2,b,2024-03-01T10:00:00.000002Z\n3,c,2024-03-01T10:00:00.000002Z\n4,d,2024-03-01T10:00:00.000003Z\n',
    );
    const second = await h.run();
    expect(second.summaries[0]!.counts).toMatchObject({ read: 1, created: 1 });
    expect(Harness.writes(second.requests)).toHaveLength(1);

    const full = await h.run({ fullRefresh: true });
    expect(full.summaries[0]!.counts).toMatchObject({ read: 4, unchanged: 4 });
  });
});

/**
 * Traces of a known run: a CSV → rows sync into the emulator with the OTLP
 * endpoint pointed at a receiver on 127.0.0.1, the spans it got decoded from
 * OTLP/HTTP JSON and checked for names, nesting and record counts. Without an
 * endpoint the OpenTelemetry side is never imported.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import pino from 'pino';
import { loadProject, openProjectState } from '../../../src/runtime/project.js';
import { executeRun } from '../../../src/worker/execute.js';
import { Harness } from '../pipeline/harness.js';

const loads = vi.hoisted(() => ({ otel: 0 }));
vi.mock('../../../src/metrics/otel-tracer.js', async (importOriginal) => {
  loads.otel++;
  return importOriginal();
});

const ROWS = 30;
const CSV = ['id,name,stage', ...Array.from({ length: ROWS }, (_, i) => `d${i},Deal ${i},Won`)].join('\n') + '\n';
const SYNC = `  - name: deals
    source: { type: csv, path: data/deals.csv, primaryKey: id }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map: { id: id, name: name, public: true, fields: { stage: stage } }
`;

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean }
interface OtlpSpan { name: string; spanId: string; parentSpanId?: string; traceId: string; attributes: { key: string; value: OtlpValue }[]; status?: { code?: number; message?: string } }

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (value?.intValue !== undefined) return Number(value.intValue);
  return value?.stringValue;
}

describe('traces of a ferry run', () => {
  let receiver: Server;
  const posts: { path: string; contentType: string; body: unknown }[] = [];
  let endpoint = '';
  let h: Harness;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ path: req.url ?? '', contentType: String(req.headers['content-type']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  beforeEach(async () => {
    posts.length = 0;
    h = await new Harness().start();
    h.write('data/deals.csv', CSV);
    h.writeConfig(SYNC);
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await h.close();
  });

  function spans(): OtlpSpan[] {
    return posts.flatMap((p) => (p.body as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  }

  it('loads no OpenTelemetry code and sends nothing without an endpoint', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', '');
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
    const { summaries } = await h.run();
    expect(summaries[0]).toMatchObject({ status: 'succeeded' });
    expect(loads.otel).toBe(0);
    expect(posts).toEqual([]);
  });

  it('sends a run span with a sync span under it and checkpoint spans under that, with the counts', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint);
    const { summaries } = await h.run();
    expect(summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: ROWS, created: ROWS } });
    expect(loads.otel).toBe(1);
    // Flushed before runProject returned, as OTLP/HTTP JSON on the standard path.
    expect(posts.length).toBeGreaterThan(0);
    expect(posts[0]).toMatchObject({ path: '/v1/traces', contentType: expect.stringContaining('application/json') });

    const all = spans();
    const run = all.find((s) => s.name === 'ferry run')!;
    const sync = all.find((s) => s.name === 'ferry sync')!;
    const checkpoints = all.filter((s) => s.name === 'ferry checkpoint');
    expect(run.parentSpanId ?? '').toBe('');
    expect(attribute(run, 'ferry.status')).toBe('succeeded');
    expect(attribute(run, 'ferry.syncs')).toBe('deals');
    expect(sync.parentSpanId).toBe(run.spanId);
    expect(sync.traceId).toBe(run.traceId);
    expect(attribute(sync, 'ferry.sync')).toBe('deals');
    expect(attribute(sync, 'ferry.status')).toBe('succeeded');
    expect(attribute(sync, 'ferry.records.read')).toBe(ROWS);
    expect(attribute(sync, 'ferry.records.created')).toBe(ROWS);
    expect(attribute(sync, 'ferry.run_id')).toBe(summaries[0]!.runId);
    expect(checkpoints.length).toBeGreaterThan(0);
    for (const c of checkpoints) expect(c.parentSpanId).toBe(sync.spanId);
    // The intervals add up to the run: each carries what changed since the one before.
    const created = checkpoints.reduce((n, c) => n + Number(attribute(c, 'ferry.records.created')), 0);
    expect(created).toBe(ROWS);
  });

  it('marks the spans failed when the run fails, and still sends them', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${endpoint}/v1/traces`);
    h.writeConfig(SYNC, { maxAttempts: 1, outageBudgetSeconds: 0 });
    h.setFaults({ rate500: 1 });
    const { summaries } = await h.run();
    expect(summaries[0]?.status).toBe('failed');
    const all = spans();
    const run = all.find((s) => s.name === 'ferry run')!;
    const sync = all.find((s) => s.name === 'ferry sync')!;
    expect(attribute(run, 'ferry.status')).toBe('failed');
    expect(sync.status?.code).toBe(2);
    expect(sync.status?.message).toBeTruthy();
    expect(JSON.stringify(posts)).not.toContain(h.emulator.devKey!);
  });

  it('sends a job span per worker job, with its sync span', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint);
    process.env.TEST_API_KEY = h.emulator.devKey!;
    const config = await loadProject(join(h.dir, 'ferry.yaml'));
    const logger = pino({ level: 'silent' });
    const store = await openProjectState(config, logger);
    try {
      const outcome = await executeRun({ kind: 'sync', name: 'deals' }, { config, store, logger, signal: new AbortController().signal });
      expect(outcome).toMatchObject({ status: 'succeeded', counts: { created: ROWS } });
    } finally {
      await store.close();
    }
    const all = spans();
    const job = all.find((s) => s.name === 'ferry job')!;
    const sync = all.find((s) => s.name === 'ferry sync')!;
    expect(attribute(job, 'ferry.status')).toBe('succeeded');
    expect(sync.parentSpanId).toBe(job.spanId);
    expect(attribute(sync, 'ferry.records.created')).toBe(ROWS);
  });

  it('keeps the run\'s outcome when the collector cannot be reached', async () => {
    // A port nothing listens on: the receiver's, closed for this test.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${closed}`);
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '500');
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const { summaries } = await h.run({ logger });
    expect(summaries[0]).toMatchObject({ status: 'succeeded', counts: { created: ROWS } });
    expect(lines.join('')).toContain('traces not sent to the OTLP endpoint');
  });
});

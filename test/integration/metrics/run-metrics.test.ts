/**
 * The metrics of a known run: a CSV → rows sync over real HTTP into the
 * emulator, the textfile read back, and its numbers checked against the run's
 * summary and the requests the emulator saw (the harness's counting proxy).
 */
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FerryMetrics } from '../../../src/metrics/index.js';
import { Harness } from '../pipeline/harness.js';
import { has, parseExposition, total } from './prom-text.js';

const ROWS = 40;
const CSV = ['id,name,stage', ...Array.from({ length: ROWS }, (_, i) => `d${i},Deal ${i},${i % 2 === 0 ? 'Won' : 'Lost'}`)].join('\n') + '\n';

const SYNC = `  - name: deals
    source: { type: csv, path: data/deals.csv, primaryKey: id }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map:
        id: id
        name: name
        public: true
        fields: { stage: stage }
`;

describe('metrics of a ferry run', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
    h.write('data/deals.csv', CSV);
  });
  afterEach(async () => {
    await h.close();
  });

  it('writes a textfile whose counts match the run and whose request count matches what the emulator saw', async () => {
    h.writeConfig(SYNC);
    const file = join(h.dir, 'metrics', 'ferry.prom');
    const { summaries, requests } = await h.run({ metricsFile: file });
    expect(summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: ROWS, created: ROWS } });

    const samples = parseExposition(readFileSync(file, 'utf8'));
    const sync = { sync: 'deals' };
    expect(total(samples, 'ferry_records_total', { ...sync, outcome: 'read' })).toBe(ROWS);
    expect(total(samples, 'ferry_records_total', { ...sync, outcome: 'created' })).toBe(ROWS);
    expect(total(samples, 'ferry_records_total', { ...sync, outcome: 'failed' })).toBe(0);
    expect(total(samples, 'ferry_http_request_duration_seconds_count')).toBe(requests.length);
    expect(total(samples, 'ferry_http_request_duration_seconds_count', { endpoint: 'createRow', status: '201' })).toBe(ROWS);
    expect(total(samples, 'ferry_runs_total', { ...sync, status: 'succeeded' })).toBe(1);
    // The adaptive rate: a slow start from 160/s (concurrency 4 × 40, at least 50) towards the ceiling of 2000.
    const rate = total(samples, 'ferry_push_rate_limit', sync);
    expect(rate).toBeGreaterThanOrEqual(160);
    expect(rate).toBeLessThanOrEqual(2000);
    expect(total(samples, 'ferry_push_in_flight', sync)).toBe(0);
    expect(total(samples, 'ferry_last_success_timestamp_seconds', sync)).toBeGreaterThan(Date.now() / 1000 - 60);
    // Written through a temporary file that is gone afterwards.
    expect(readdirSync(join(h.dir, 'metrics'))).toEqual(['ferry.prom']);

    await h.run({ metricsFile: file });
    const again = parseExposition(readFileSync(file, 'utf8'));
    expect(total(again, 'ferry_records_total', { ...sync, outcome: 'unchanged' })).toBe(ROWS);
    expect(total(again, 'ferry_records_total', { ...sync, outcome: 'created' })).toBe(0);
  });

  it('still writes the file when the run fails, with the last success from the state store', async () => {
    // No outage budget: give up after the one attempt instead of riding out the 500s.
    h.writeConfig(SYNC, { maxAttempts: 1, outageBudgetSeconds: 0 });
    const file = join(h.dir, 'ferry.prom');
    await h.run();
    const before = Date.now() / 1000;

    h.write('data/deals.csv', CSV.replace('Deal 3,', 'Deal three,'));
    h.setFaults({ rate500: 1 });
    const { summaries } = await h.run({ metricsFile: file });
    expect(summaries[0]?.status).toBe('failed');

    const samples = parseExposition(readFileSync(file, 'utf8'));
    expect(total(samples, 'ferry_runs_total', { sync: 'deals', status: 'failed' })).toBe(1);
    expect(total(samples, 'ferry_http_request_duration_seconds_count', { status: '500' })).toBeGreaterThan(0);
    const lastSuccess = total(samples, 'ferry_last_success_timestamp_seconds', { sync: 'deals' });
    expect(lastSuccess).toBeGreaterThan(before - 60);
    expect(lastSuccess).toBeLessThanOrEqual(before);
  });

  it('counts into a registry the caller scrapes, across runs, and counts 429s and retries', async () => {
    h.writeConfig(SYNC, { maxAttempts: 6 });
    const metrics = new FerryMetrics();
    await h.run({ metrics });
    // Three edited records pushed through a service that answers every other request 429.
    h.write('data/deals.csv', CSV.replace('Deal 1,', 'Deal one,').replace('Deal 2,', 'Deal two,').replace('Deal 3,', 'Deal three,'));
    h.setFaults({ rate429: 0.5, retryAfterSeconds: 0, seed: 7 });
    const { summaries, requests } = await h.run({ metrics });
    expect(summaries[0]).toMatchObject({ status: 'succeeded', counts: { updated: 3, unchanged: ROWS - 3 } });

    const samples = parseExposition(await metrics.text());
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'read' })).toBe(2 * ROWS);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'created' })).toBe(ROWS);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'updated' })).toBe(3);
    const throttled = total(samples, 'ferry_http_throttled_total');
    expect(throttled).toBeGreaterThan(0);
    expect(throttled).toBe(total(samples, 'ferry_http_request_duration_seconds_count', { status: '429' }));
    // Every request of both runs was answered and timed once; the proxy saw the second run's.
    expect(total(samples, 'ferry_http_request_duration_seconds_count')).toBeGreaterThanOrEqual(requests.length + ROWS);
    expect(total(samples, 'ferry_runs_total', { sync: 'deals' })).toBe(2);
    // 429s on pushes are retried by the sink, 429s on setup calls and reads by the client.
    expect(total(samples, 'ferry_push_retries_total', { sync: 'deals' }) + total(samples, 'ferry_http_retries_total')).toBe(throttled);
    expect(has(samples, 'ferry_push_rate_limit', { sync: 'deals' })).toBe(true);
  });

  it('pushes to the Pushgateway of ferry.yaml when the run ends', async () => {
    const pushes: { method?: string; url?: string; body: string }[] = [];
    const gateway = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        pushes.push({ method: req.method, url: req.url, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    try {
      appendFileSync(h.writeConfig(SYNC), `metrics:\n  pushgateway: http://127.0.0.1:${(gateway.address() as AddressInfo).port}\n  job: crm\n`);
      await h.run();
      expect(pushes).toHaveLength(1);
      expect(pushes[0]).toMatchObject({ method: 'POST', url: '/metrics/job/crm' });
      const samples = parseExposition(pushes[0]!.body);
      expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'created' })).toBe(ROWS);
    } finally {
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
    }
  });
});

/** The textfile and the Pushgateway: what a one-shot run leaves behind when it ends. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FerryMetrics, exportMetrics, writeMetricsFile } from '../../../src/metrics/index.js';

function recordingLogger() {
  const lines: { level: string; fields: unknown; msg: string }[] = [];
  return {
    lines,
    error: (fields: object | string, msg = '') => void lines.push({ level: 'error', fields, msg }),
    debug: (fields: object | string, msg = '') => void lines.push({ level: 'debug', fields, msg }),
  };
}

describe('metrics export', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-metrics-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces the textfile whole and leaves no temporary file', async () => {
    const metrics = new FerryMetrics();
    metrics.sync('deals').finish({ status: 'succeeded', counts: { read: 3, pushed: 3, created: 3, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 0 }, durationMs: 10 });
    const file = join(dir, 'textfile', 'ferry.prom');
    await writeMetricsFile(metrics, file);
    writeFileSync(file, 'stale');
    await writeMetricsFile(metrics, file);
    expect(readFileSync(file, 'utf8')).toContain('ferry_records_total{sync="deals",outcome="created"} 3');
    expect(readdirSync(join(dir, 'textfile'))).toEqual(['ferry.prom']);
  });

  it('pushes with POST under the job, and logs a failed push without the URL credentials', async () => {
    const received: { method?: string; url?: string; body: string }[] = [];
    let status = 200;
    const gateway = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, body });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const port = (gateway.address() as AddressInfo).port;
    try {
      const metrics = new FerryMetrics();
      metrics.clientObserver().onResponse?.({ endpoint: 'createRow', status: 201, durationMs: 4, attempt: 1 });
      const logger = recordingLogger();
      await exportMetrics(metrics, { pushgateway: `http://127.0.0.1:${port}`, job: 'crm' }, logger);
      expect(received[0]).toMatchObject({ method: 'POST', url: '/metrics/job/crm' });
      expect(received[0]!.body).toContain('ferry_http_request_duration_seconds_count{endpoint="createRow",status="201"} 1');
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);

      status = 500;
      await exportMetrics(metrics, { pushgateway: `http://ops:hunter2@127.0.0.1:${port}` }, logger);
      const failed = logger.lines.find((l) => l.level === 'error');
      expect(failed?.msg).toMatch(/could not push metrics to http:\/\/ops:\*\*\*@127\.0\.0\.1:\d+ .*500/);
      expect(JSON.stringify(logger.lines)).not.toContain('hunter2');
    } finally {
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
    }
  });

  it('logs, and does not throw, when the textfile cannot be written', async () => {
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, '');
    const logger = recordingLogger();
    await exportMetrics(new FerryMetrics(), { file: join(blocker, 'ferry.prom') }, logger);
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'error', msg: expect.stringContaining('could not write the metrics file') })]);
  });
});

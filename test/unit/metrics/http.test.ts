/** GET /metrics on a server of its own, and the handler a worker mounts next to its own routes. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FerryMetrics, metricsRequestHandler, serveMetrics } from '../../../src/metrics/index.js';
import type { MetricsServer } from '../../../src/metrics/index.js';

describe('metrics over HTTP', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('serves the exposition on /metrics and 404 elsewhere', async () => {
    const metrics = new FerryMetrics();
    metrics.clientObserver().onResponse?.({ endpoint: 'health', status: 200, durationMs: 2, attempt: 1 });
    server = await serveMetrics(metrics);
    const answer = await fetch(server.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    expect(await answer.text()).toContain('ferry_http_request_duration_seconds_count{endpoint="health",status="200"} 1');
    const head = await fetch(server.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('leaves other paths and methods to the server that mounts it', async () => {
    const handle = metricsRequestHandler(new FerryMetrics());
    const mounted = createServer((req, res) => {
      if (handle(req, res)) return;
      res.writeHead(200).end('health ok');
    });
    await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`;
    try {
      expect(await (await fetch(`${base}/healthz`)).text()).toBe('health ok');
      expect(await (await fetch(`${base}/metrics`, { method: 'POST' })).text()).toBe('health ok');
      expect(await (await fetch(`${base}/metrics?x=1`)).text()).toContain('# HELP ferry_records_total');
    } finally {
      await new Promise<void>((resolve) => mounted.close(() => resolve()));
    }
  });
});

/**
 * Liveness and readiness for orchestrators: `GET /healthz` answers 200 while
 * the process is serving (a wedged event loop cannot answer at all);
 * `GET /readyz` answers 200 once the worker is connected to its queue and
 * 503 while it starts or drains after SIGTERM. Both return a JSON body with
 * the worker id and the runs it holds.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { metricsRequestHandler } from '../metrics/http.js';
import type { MetricsSource } from '../metrics/http.js';

export interface HealthSource {
  workerId: string;
  ready(): boolean;
  running(): { queue: string; job: string; startedAt: string }[];
  /** Served on `GET /metrics` (docs/metrics.md). */
  metrics?: MetricsSource;
}

export async function startHealthServer(port: number, host: string, source: HealthSource): Promise<{ server: Server; port: number }> {
  const serveMetrics = source.metrics ? metricsRequestHandler(source.metrics) : undefined;
  const server = createServer((req, res) => {
    if (serveMetrics?.(req, res)) return;
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || (path !== '/healthz' && path !== '/readyz')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not found; try /healthz, /readyz or /metrics' }));
      return;
    }
    const ready = source.ready();
    const status = path === '/readyz' && !ready ? 503 : 200;
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ worker: source.workerId, ready, running: source.running() }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address !== null ? address.port : port };
}

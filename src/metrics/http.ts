/**
 * `GET /metrics` for long-running processes: a handler any node:http server
 * can mount (the worker's health server), and a small server of its own.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Anything that renders the Prometheus text exposition. */
export interface MetricsSource {
  text(): Promise<string>;
  readonly contentType: string;
}

export const METRICS_PATH = '/metrics';

/**
 * Answers `GET`/`HEAD /metrics` and returns true; returns false for any other
 * request, which the caller then handles itself.
 */
export function metricsRequestHandler(source: MetricsSource): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    source.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`# metrics collection failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
    return true;
  };
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Serve only `/metrics` (404 elsewhere) on host:port; port 0 picks a free one. */
export async function serveMetrics(source: MetricsSource, options: { host?: string; port?: number } = {}): Promise<MetricsServer> {
  const handle = metricsRequestHandler(source);
  const server = createServer((req, res) => {
    if (handle(req, res)) return;
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`not found: metrics are at ${METRICS_PATH}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}${METRICS_PATH}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

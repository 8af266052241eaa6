/**
 * A loopback proxy in front of the emulator that counts the service-side
 * writes of each record (POST and PATCH /v1/rows), so a test can tell a
 * record written once from one written by two workers.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';

export interface WriteCounter {
  url: string;
  /** Writes per `<sourceId>/<remote id>`. */
  writes: Map<string, number>;
  /** Every request the proxy passed on, writes or not. */
  requests: number;
  close(): Promise<void>;
}

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding']);

export async function startWriteCounter(target: string): Promise<WriteCounter> {
  const writes = new Map<string, number>();
  const counter: WriteCounter = { url: '', writes, requests: 0, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      counter.requests++;
      const url = new URL(req.url ?? '/', target);
      countWrite(req.method ?? 'GET', url, body, writes);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => !HOP_HEADERS.has(k) && typeof v === 'string')) as Record<string, string>;
      fetch(url, { method: req.method ?? 'GET', headers, ...(body.length > 0 ? { body } : {}) })
        .then(async (answer) => {
          const payload = Buffer.from(await answer.arrayBuffer());
          const out: Record<string, string> = {};
          answer.headers.forEach((value, key) => {
            if (!HOP_HEADERS.has(key)) out[key] = value;
          });
          res.writeHead(answer.status, out).end(payload);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  counter.url = `http://127.0.0.1:${port}`;
  return counter;
}

function countWrite(method: string, url: URL, body: Buffer, writes: Map<string, number>): void {
  if (url.pathname !== '/v1/rows' || (method !== 'POST' && method !== 'PATCH')) return;
  let key: string | undefined;
  if (method === 'PATCH') key = `${url.searchParams.get('sourceId')}/${url.searchParams.get('remoteId')}`;
  else {
    const parsed = JSON.parse(body.toString('utf8')) as { sourceId?: string; id?: string };
    key = `${parsed.sourceId}/${parsed.id}`;
  }
  writes.set(key, (writes.get(key) ?? 0) + 1);
}

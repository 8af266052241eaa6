/**
 * A scriptable JSON API on 127.0.0.1 (ephemeral port) that records every
 * request, and a virtual clock, for the http source's tests.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import type { Clock } from '../../../connectors/sources/http/index.js';
import { abortedError, type IncrementalRead, type ReadContext, type SourceDefinition, type SourceRecord } from '../../../src/sdk/index.js';

export interface SeenRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
}

export type Handler = (request: SeenRequest) => Reply | Promise<Reply>;

export interface TestApi {
  url: string;
  requests: SeenRequest[];
  /** Requests to one path (query ignored). */
  to(path: string): SeenRequest[];
  close(): Promise<void>;
}

/**
 * `host`: the loopback address to listen on (127.0.0.2 poses as another host:
 * Linux routes all of 127.0.0.0/8 to lo). `raw`: answers a request itself
 * (streams, broken lengths) when it returns true.
 */
export async function startApi(handler: Handler, options: { host?: string; raw?: (req: IncomingMessage, res: ServerResponse) => boolean } = {}): Promise<TestApi> {
  const requests: SeenRequest[] = [];
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', `http://${host}`),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      if (options.raw?.(req, res)) return;
      Promise.resolve()
        .then(() => handler(seen))
        .then((reply) => {
          const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
          res.writeHead(reply.status ?? 200, { 'content-type': reply.json !== undefined ? 'application/json' : 'text/plain', ...reply.headers });
          res.end(body);
        })
        .catch((error: unknown) => {
          res.writeHead(500);
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    to: (path) => requests.filter((request) => request.url.pathname === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock whose sleeps return at once and move time forward; every wait is recorded. */
export class VirtualClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(public time = Date.UTC(2024, 0, 1)) {}
  now(): number {
    return this.time;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortedError(signal, 'wait');
    this.sleeps.push(ms);
    this.time += ms;
  }
}

export const silent = { debug() {}, info() {}, warn() {}, error() {} };

export function context<Schema extends z.ZodType>(
  source: SourceDefinition<Schema>,
  input: z.input<Schema> | z.output<Schema>,
  extra: { incremental?: IncrementalRead; signal?: AbortSignal; parsed?: boolean; logger?: ReadContext<unknown>['logger'] } = {},
): ReadContext<z.output<Schema>> {
  return {
    options: extra.parsed ? (input as z.output<Schema>) : source.options.parse(input),
    baseDir: process.cwd(),
    syncName: 'test-sync',
    logger: extra.logger ?? silent,
    signal: extra.signal ?? new AbortController().signal,
    ...(extra.incremental ? { incremental: extra.incremental } : {}),
  };
}

export async function readAll<Schema extends z.ZodType>(
  source: SourceDefinition<Schema>,
  input: z.input<Schema> | z.output<Schema>,
  extra: Parameters<typeof context>[2] = {},
): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of source.read(context(source, input, extra))) records.push(record);
  return records;
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** `count` items `{ id, name, updated_at }`, one minute apart. */
export function items(count: number, from = 1): { id: number; name: string; updated_at: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    id: from + i,
    name: `item ${from + i}`,
    updated_at: new Date(Date.UTC(2024, 0, 1) + (from + i) * 60_000).toISOString(),
  }));
}

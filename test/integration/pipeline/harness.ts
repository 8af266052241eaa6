/**
 * A project on disk, an emulator on a port, and a counting proxy between
 * them: whole syncs run over real HTTP exactly as a user's would, and the
 * test can tell how many requests a run really sent.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { ServiceClient } from '../../../src/api/client.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { FaultOptions, RunningEmulator } from '../../../src/emulator/index.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import type { ProjectRunOptions, ProjectRunSummary } from '../../../src/pipeline/run-project.js';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';

export interface RequestLog {
  method: string;
  path: string;
  /** The request body as sent (empty for GET). */
  body: string;
}

export class Harness {
  readonly dir = mkdtempSync(join(tmpdir(), 'ferry-pipeline-'));
  requests: RequestLog[] = [];
  /** The most requests of each method the proxy held at once (since the last run began). */
  maxInFlight: Record<string, number> = {};
  /** Ms the proxy holds each answer to requests of a method: a service with latency, so that requests sent at once overlap. */
  holdAnswerMs: Record<string, number> = {};
  private inFlight: Record<string, number> = {};
  emulator!: RunningEmulator;
  private proxy!: Server;
  proxyUrl = '';
  client!: ServiceClient;

  async start(): Promise<this> {
    this.emulator = await startEmulator({ db: join(this.dir, 'emulator.db') });
    this.proxy = createServer((req, res) => {
      const entry: RequestLog = { method: req.method ?? '', path: req.url ?? '', body: '' };
      this.requests.push(entry);
      const method = entry.method;
      this.inFlight[method] = (this.inFlight[method] ?? 0) + 1;
      this.maxInFlight[method] = Math.max(this.maxInFlight[method] ?? 0, this.inFlight[method]);
      res.on('close', () => void (this.inFlight[method] = this.inFlight[method]! - 1));
      req.on('data', (chunk: Buffer) => (entry.body += chunk.toString('utf8')));
      const target = new URL(req.url ?? '/', this.emulator.url);
      const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
        const forward = (): void => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        const hold = this.holdAnswerMs[method] ?? 0;
        if (hold > 0) setTimeout(forward, hold);
        else forward();
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.proxy.listen(0, '127.0.0.1', resolve));
    this.proxyUrl = `http://127.0.0.1:${(this.proxy.address() as AddressInfo).port}`;
    this.client = new ServiceClient({ baseUrl: this.emulator.url, apiKey: this.emulator.devKey!, retry: { maxAttempts: 1 } });
    return this;
  }

  write(relative: string, content: string): string {
    const path = join(this.dir, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  }

  /** ferry.yaml pointing at the proxy, with the given syncs (YAML text, indented under `syncs:`). */
  writeConfig(syncs: string, service: Record<string, unknown> = {}): string {
    const extra = Object.entries(service).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`).join('\n');
    return this.write(
      'ferry.yaml',
      `version: 1
service:
  baseUrl: ${this.proxyUrl}
  apiKey: \${TEST_API_KEY}
  concurrency: 4
  maxRequestsPerSecond: 2000
${extra}
state:
  url: sqlite:state/ferry.db
syncs:
${syncs}`,
    );
  }

  /** Opens the project's state store (`writeConfig`'s), hands it to `read`, and closes it. */
  async withState<T>(read: (store: StateStore) => Promise<T>): Promise<T> {
    const store = await openStateStore(`sqlite:${this.dir}/state/ferry.db`);
    try {
      return await read(store);
    } finally {
      await store.close();
    }
  }

  async run(options: Partial<ProjectRunOptions> = {}): Promise<{ summaries: ProjectRunSummary[]; requests: RequestLog[] }> {
    this.requests = [];
    this.maxInFlight = {};
    process.env.TEST_API_KEY = this.emulator.devKey!;
    const summaries = await runProject({
      configFile: join(this.dir, 'ferry.yaml'),
      syncNames: [],
      logger: pino({ level: 'silent' }),
      ...options,
    });
    return { summaries, requests: this.requests };
  }

  setFaults(faults: FaultOptions): void {
    this.emulator.setFaults(faults);
  }

  /** Record-writing requests (POST/PATCH/DELETE on record endpoints) in the last run. */
  static writes(requests: RequestLog[]): RequestLog[] {
    return requests.filter((r) => r.method !== 'GET' && /^\/v1\/(conversations|messages|rows|documents)/.test(r.path));
  }

  async close(): Promise<void> {
    await this.client?.close();
    await new Promise<void>((resolve) => this.proxy?.close(() => resolve()));
    await this.emulator?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** All rows of one object type the read side returns, keyed by remote id. */
export async function readRows(client: ServiceClient, sourceName: string, objectTypeName: string): Promise<Map<string, Record<string, unknown>>> {
  const { sources } = await client.listSources({ name: sourceName });
  const source = sources.find((s) => s.name === sourceName);
  if (!source) return new Map();
  const { objectTypes } = await client.listObjectTypes({ sourceId: source.id });
  const type = objectTypes.find((t) => t.name === objectTypeName);
  if (!type) return new Map();
  const rows = new Map<string, Record<string, unknown>>();
  for await (const row of client.iterateRows({ sourceId: source.id, objectTypeId: type.id, limit: 50 })) {
    rows.set(row.remoteId, row);
  }
  return rows;
}

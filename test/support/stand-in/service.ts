/**
 * A minimal stand-in for the service on node:http, for the benchmarks (bench/) and the
 * fault-tolerance tests: enough of sources, object types and the four record
 * endpoints for `ferry run` to do a whole sync, answering in one of these modes:
 *
 * - `instant`: 201 at once;
 * - `latency`: 201 after a fixed delay, counted from when the body was read
 *   (see {@link HoldTimer}: Node's timers fire late, so the hold is aimed
 *   early by the lateness it measures, and holds the delay on average);
 * - `bucket`: a token bucket (rate, burst); an empty bucket answers 429 with `Retry-After` at once,
 *   a served request is answered after `latencyMs` (default 0);
 * - `queue`: serves `servers` requests at a time, each held `ms`; past that, requests wait in
 *   line (first come, first served) for a free server: a service with a parallel capacity,
 *   whose latency rises as a client sends more than it serves;
 * - `faults`: a random mix of 429 (with Retry-After), 500 and dropped connections.
 *
 * It keeps the end state (one entry per (sourceId, id)) and counts what it saw,
 * so a caller can check that every record landed exactly once. Nothing here
 * validates bodies the way the real service does: that is the emulator's job.
 *
 * It must stay faster than any client measured against it: on 2 cores its
 * CPU is the client's loss. So a record write costs one JSON.parse and one
 * map entry, the path is not parsed as a URL, and the per-write timeline and
 * the event-loop lateness timer (for the latency probe) run only when a
 * mode switch asks for them (`trace`). Measured with the bench's
 * hand-written client at zero latency (100,000 writes): 62 µs of the
 * stand-in's CPU per write, against 74 with the timeline always on (both
 * compiled) and 69 for this code run through tsx.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { seededRandom } from '../../../src/emulator/faults.js';

export type StandInMode =
  | { kind: 'instant' }
  | { kind: 'latency'; ms: number }
  | { kind: 'bucket'; perSecond: number; burst: number; retryAfterSeconds: number; latencyMs?: number }
  | { kind: 'queue'; servers: number; ms: number }
  | { kind: 'faults'; throttled: number; failed: number; dropped: number; retryAfterSeconds: number; latencyMs?: number }
  | { kind: 'down'; answer: 'error' | 'refuse' };

export interface StandInStats {
  requests: number;
  /** Record writes answered 2xx. */
  written: number;
  throttled: number;
  failed: number;
  dropped: number;
  maxInFlight: number;
  /** performance.now() of the first record write that arrived, whatever it was answered (0 before any). */
  firstRowRequestAt: number;
  /** performance.now() of the first and the last record write answered 2xx (0 before any). */
  firstWriteAt: number;
  lastWriteAt: number;
  /**
   * The first write answered a second or more after the first one, and how many had been answered then (0 before):
   * the rate after it leaves out a run's start (slow start, code not yet optimised), a fixed cost a long sync does not notice.
   */
  settledAt: number;
  writtenBySettled: number;
  /** Writes whose body differed from the one already stored (a second client sending the same records should cause none). */
  changedBodies: number;
}

/**
 * Record writes answered 2xx as the stand-in saw them: `[id, arrived, answered]`,
 * arrived when its body was read, both in epoch ms with sub-millisecond
 * precision (comparable with another process's), for the latency probe to
 * find where a client leaves request slots idle.
 */
export interface StandInTimeline {
  writes: [string, number, number][];
  /** CPU ms the stand-in used since the reset, and how late its event loop ran (ms summed over ticks more than 2 ms late). */
  cpuMs?: number;
  loopLateMs?: number;
  /** How long `latency` holds took since the reset, from the body read to the answer (see HoldTimer). */
  hold?: HoldFigures;
}

const epochNow = (): number => performance.timeOrigin + performance.now();

export interface HoldFigures {
  holds: number;
  /** Mean and 99th percentile of the held time, ms. */
  meanMs: number;
  p99Ms: number;
}

/**
 * Runs a callback a fixed delay after now, on average. Node's timers fire
 * late: its loop clock counts whole milliseconds and a timer's delay is
 * rounded up to one, so `setTimeout(run, 20)` held 20.6-20.7 ms under a
 * client's load, and a service that answers in 20.7 ms is not the 20 ms
 * service a bench's bound (concurrency ÷ latency) assumes. So each timer is
 * set early by the lateness measured so far; since only whole milliseconds
 * count, the early aims alternate between the two whole numbers around
 * the wanted one (carrying the remainder from one to the next), so that
 * their mean is right. No timer spins, which on 2 cores would take the
 * client's CPU. The holds are kept so the bench can show them.
 */
export class HoldTimer {
  /** Moving mean of how much later than its whole-millisecond aim a timer fired. */
  private lateMs = 0;
  private fired = 0;
  /** The part of a millisecond the last aims were short of the wanted one, carried to the next. */
  private carry = 0;
  private held: number[] = [];

  /** Node's timers and clock by default; a test passes a simulated pair. */
  constructor(
    private readonly clock: { now(): number; setTimeout(run: () => void, ms: number): unknown } = {
      now: () => performance.now(),
      setTimeout: (run, ms) => setTimeout(run, ms),
    },
  ) {}

  reset(): void {
    this.held = [];
  }

  after(delayMs: number, run: () => void): void {
    const start = this.clock.now();
    const wanted = Math.max(1, delayMs - this.lateMs) + this.carry;
    const aim = Math.floor(wanted);
    this.carry = wanted - aim;
    this.clock.setTimeout(() => {
      const held = this.clock.now() - start;
      this.fired++;
      // A plain mean at first, then one that follows a change of load within a few hundred holds.
      this.lateMs += (held - aim - this.lateMs) / Math.min(this.fired, 300);
      if (this.held.length < 1_000_000) this.held.push(held);
      run();
    }, aim);
  }

  measured(): HoldFigures | undefined {
    if (this.held.length === 0) return undefined;
    const sorted = Float64Array.from(this.held).sort();
    let sum = 0;
    for (const held of sorted) sum += held;
    return { holds: sorted.length, meanMs: sum / sorted.length, p99Ms: sorted[Math.floor(sorted.length * 0.99)]! };
  }
}

interface Stored {
  body: string;
  writes: number;
}

/** How long after the first write a run counts as settled (StandInStats.settledAt). */
const SETTLE_MS = 1000;

const RECORD_PATHS = new Map([
  ['/v1/rows', 'row'],
  ['/v1/conversations', 'conversation'],
  ['/v1/messages', 'message'],
  ['/v1/documents', 'document'],
]);

export class StandInService {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: StandInMode;
  private random: () => number;
  private tokens = 0;
  private refilledAt = performance.now();
  private inFlight = 0;
  /** `queue` mode: requests being served, and those waiting for a server (from `waitingHead` on). */
  private serving = 0;
  private waiting: (() => void)[] = [];
  private waitingHead = 0;
  private readonly sources = new Map<string, { id: string; name: string; displayName: string; createdAt: string; updatedAt: string }>();
  private readonly objectTypes = new Map<string, Record<string, unknown>>();
  /** End state: `${kind} ${sourceId} ${id}` → last body and how many writes it took. */
  readonly records = new Map<string, Stored>();
  stats: StandInStats = emptyStats();
  timeline: StandInTimeline = { writes: [] };
  private cpuAtReset = process.cpuUsage();
  private loopLateMs = 0;
  private loopTimer: NodeJS.Timeout | undefined;
  /** Whether writes go into the timeline and the loop's lateness is sampled (the latency probe's `trace`). */
  private tracing = false;
  private readonly hold = new HoldTimer();
  url = '';

  constructor(mode: StandInMode = { kind: 'instant' }, options: { seed?: number } = {}) {
    this.mode = mode;
    this.random = seededRandom(options.seed ?? 1);
    this.setMode(mode);
  }

  /** Change how the service answers from now on; keeps the stored records. */
  setMode(mode: StandInMode, seed?: number): void {
    this.mode = mode;
    if (seed !== undefined) this.random = seededRandom(seed);
    if (mode.kind === 'bucket') {
      this.tokens = mode.burst;
      this.refilledAt = performance.now();
    }
  }

  /** Forget stored records and counters (sources and object types stay); `trace` keeps a timeline from now on. */
  reset(options: { trace?: boolean } = {}): void {
    this.records.clear();
    this.stats = emptyStats();
    this.timeline = { writes: [] };
    this.cpuAtReset = process.cpuUsage();
    this.loopLateMs = 0;
    this.hold.reset();
    this.trace(options.trace === true);
  }

  /** The latency probe's instruments: a timeline entry per write, and a 1 ms timer that sees how late the loop runs. */
  private trace(on: boolean): void {
    this.tracing = on;
    clearInterval(this.loopTimer);
    this.loopTimer = undefined;
    if (!on || !this.server) return;
    let last = performance.now();
    this.loopTimer = setInterval(() => {
      const now = performance.now();
      if (now - last > 3) this.loopLateMs += now - last - 1;
      last = now;
    }, 1);
    this.loopTimer.unref();
  }

  async start(port = 0): Promise<this> {
    this.server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      if (this.mode.kind === 'down' && this.mode.answer === 'refuse') {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.loopTimer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.stats.requests++;
      this.inFlight++;
      this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.inFlight);
      res.on('close', () => this.inFlight--);
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url?.startsWith('/__stand-in/')) return this.control(req.url, res);
      if (this.stats.firstRowRequestAt === 0 && req.method === 'POST' && RECORD_PATHS.has(req.url?.split('?')[0] ?? '')) this.stats.firstRowRequestAt = performance.now();
      const refusal = this.refusal();
      if (refusal === 'drop') {
        this.stats.dropped++;
        // Half the drops happen after the write was stored: the client cannot tell which.
        if (this.random() < 0.5) this.route(req, body, { writeHead: () => undefined, end: () => undefined } as unknown as ServerResponse);
        req.socket.destroy();
        return;
      }
      if (refusal) return void send(res, refusal.status, refusal.body, refusal.headers);
      const arrivedAt = this.tracing ? epochNow() : 0;
      if (this.mode.kind === 'queue') return this.queued(this.mode, () => this.route(req, body, res, arrivedAt));
      const delay = holdOf(this.mode);
      if (delay > 0) this.hold.after(delay, () => this.route(req, body, res, arrivedAt));
      else this.route(req, body, res, arrivedAt);
    });
  }

  /** `queue` mode: served by one of `servers` (held `ms`), or in line for the next free one. */
  private queued(mode: { servers: number; ms: number }, answer: () => void): void {
    const serve = (): void => {
      this.serving++;
      this.hold.after(mode.ms, () => {
        answer();
        this.serving--;
        if (this.waitingHead < this.waiting.length) {
          const next = this.waiting[this.waitingHead++]!;
          if (this.waitingHead > 1024) {
            this.waiting = this.waiting.slice(this.waitingHead);
            this.waitingHead = 0;
          }
          next();
        }
      });
    };
    if (this.serving < mode.servers) serve();
    else this.waiting.push(serve);
  }

  /** What the current mode answers instead of the real thing, if anything. */
  private refusal(): { status: number; body: unknown; headers?: Record<string, string> } | 'drop' | undefined {
    const mode = this.mode;
    if (mode.kind === 'down') return { status: 500, body: { detail: 'the stand-in is down' } };
    if (mode.kind === 'bucket') {
      const now = performance.now();
      this.tokens = Math.min(mode.burst, this.tokens + ((now - this.refilledAt) * mode.perSecond) / 1000);
      this.refilledAt = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return undefined;
      }
      this.stats.throttled++;
      return { status: 429, body: { detail: 'rate limit exceeded' }, headers: { 'retry-after': String(mode.retryAfterSeconds) } };
    }
    if (mode.kind === 'faults') {
      const draw = this.random();
      if (draw < mode.throttled) {
        this.stats.throttled++;
        return { status: 429, body: { detail: 'rate limit exceeded' }, headers: { 'retry-after': String(mode.retryAfterSeconds) } };
      }
      if (draw < mode.throttled + mode.failed) {
        this.stats.failed++;
        return { status: 500, body: { detail: 'internal error' } };
      }
      if (draw < mode.throttled + mode.failed + mode.dropped) return 'drop';
    }
    return undefined;
  }

  private route(req: IncomingMessage, body: string, res: ServerResponse, arrivedAt = 0): void {
    const target = req.url ?? '/';
    // A record write (the hot path) needs only the path: no URL object for it.
    const query = target.indexOf('?');
    const kind = RECORD_PATHS.get(query < 0 ? target : target.slice(0, query));
    if (kind && req.method === 'POST') return this.write(kind, body, res, arrivedAt);
    const url = new URL(target, 'http://stand-in');
    if (kind && req.method === 'DELETE') return this.remove(kind, url, res);
    if (url.pathname === '/v1/sources') return req.method === 'POST' ? this.createSource(body, res) : this.listSources(url, res);
    if (url.pathname === '/v1/object-types') return req.method === 'POST' ? this.createObjectType(body, res) : this.listObjectTypes(url, res);
    const typeId = /^\/v1\/object-types\/([^/]+)$/.exec(url.pathname)?.[1];
    if (typeId && req.method === 'PATCH') return this.updateObjectType(typeId, body, res);
    if (url.pathname === '/health') return send(res, 200, { status: 'ok' });
    send(res, 404, { detail: `the stand-in has no ${req.method} ${url.pathname}` });
  }

  private write(kind: string, text: string, res: ServerResponse, arrivedAt: number): void {
    const body = JSON.parse(text) as { id: string; sourceId: string };
    if (this.tracing) this.timeline.writes.push([body.id, arrivedAt, epochNow()]);
    const key = `${kind} ${body.sourceId} ${body.id}`;
    const existing = this.records.get(key);
    if (existing && existing.body !== text) this.stats.changedBodies++;
    this.records.set(key, { body: text, writes: (existing?.writes ?? 0) + 1 });
    this.stats.written++;
    const now = performance.now();
    if (this.stats.firstWriteAt === 0) this.stats.firstWriteAt = now;
    else if (this.stats.settledAt === 0 && now - this.stats.firstWriteAt >= SETTLE_MS) {
      this.stats.settledAt = now;
      this.stats.writtenBySettled = this.stats.written;
    }
    this.stats.lastWriteAt = now;
    send(res, 201, { status: existing ? 'updated' : 'created', recordId: recordIdOf(key), id: body.id, sourceId: body.sourceId });
  }

  private remove(kind: string, url: URL, res: ServerResponse): void {
    const key = `${kind} ${url.searchParams.get('sourceId')} ${url.searchParams.get('remoteId')}`;
    if (!this.records.delete(key)) return send(res, 404, { detail: 'no such record' });
    send(res, 200, { status: 'deleted', recordId: recordIdOf(key), id: url.searchParams.get('remoteId'), sourceId: url.searchParams.get('sourceId'), deletedAt: new Date().toISOString() });
  }

  private listSources(url: URL, res: ServerResponse): void {
    const name = url.searchParams.get('name')?.toLowerCase();
    send(res, 200, { sources: [...this.sources.values()].filter((s) => !name || s.name.toLowerCase().includes(name)) });
  }

  private createSource(text: string, res: ServerResponse): void {
    const body = JSON.parse(text) as { name: string; displayName?: string };
    if ([...this.sources.values()].some((s) => s.name === body.name)) return send(res, 409, { detail: 'source exists' });
    const now = new Date().toISOString();
    const source = { id: randomUUID(), name: body.name, displayName: body.displayName ?? body.name, createdAt: now, updatedAt: now };
    this.sources.set(source.id, source);
    send(res, 201, source);
  }

  private listObjectTypes(url: URL, res: ServerResponse): void {
    const sourceId = url.searchParams.get('sourceId');
    send(res, 200, { objectTypes: [...this.objectTypes.values()].filter((t) => !sourceId || t.sourceId === sourceId) });
  }

  private createObjectType(text: string, res: ServerResponse): void {
    const body = JSON.parse(text) as { sourceId: string; name: string; displayName?: string; fieldDefinitions?: unknown[] };
    if ([...this.objectTypes.values()].some((t) => t.sourceId === body.sourceId && t.name === body.name)) return send(res, 409, { detail: 'object type exists' });
    const now = new Date().toISOString();
    const type = { id: randomUUID(), sourceId: body.sourceId, name: body.name, displayName: body.displayName ?? body.name, fieldDefinitions: definitions(body.fieldDefinitions), createdAt: now, updatedAt: now };
    this.objectTypes.set(type.id, type);
    send(res, 201, type);
  }

  private updateObjectType(id: string, text: string, res: ServerResponse): void {
    const type = this.objectTypes.get(id);
    if (!type) return send(res, 404, { detail: 'no such object type' });
    const body = JSON.parse(text) as { fieldDefinitions?: unknown[]; displayName?: string };
    if (body.fieldDefinitions) type.fieldDefinitions = definitions(body.fieldDefinitions);
    type.updatedAt = new Date().toISOString();
    send(res, 200, type);
  }

  /** `/__stand-in/stats` and `/__stand-in/mode?json=…`: control from another process (the bench). */
  private control(path: string, res: ServerResponse): void {
    const url = new URL(path, 'http://stand-in');
    this.stats.requests--;
    if (url.pathname === '/__stand-in/timeline') {
      const cpu = process.cpuUsage(this.cpuAtReset);
      return void send(res, 200, { ...this.timeline, cpuMs: (cpu.user + cpu.system) / 1000, loopLateMs: this.loopLateMs, hold: this.hold.measured() });
    }
    if (url.pathname === '/__stand-in/body') {
      const stored = [...this.records.entries()].find(([key]) => key.endsWith(` ${url.searchParams.get('id')}`));
      return void send(res, stored ? 200 : 404, stored ? JSON.parse(stored[1].body) : { detail: 'no such record' });
    }
    if (url.pathname === '/__stand-in/mode') {
      this.setMode(JSON.parse(url.searchParams.get('json') ?? '{}') as StandInMode, Number(url.searchParams.get('seed') ?? 1));
      if (url.searchParams.has('reset')) this.reset({ trace: url.searchParams.has('trace') });
    }
    send(res, 200, { stats: this.stats, records: this.records.size, duplicates: [...this.records.values()].filter((r) => r.writes > 1).length });
  }
}

/** How long the mode holds a request it serves (record write or not), ms. */
function holdOf(mode: StandInMode): number {
  if (mode.kind === 'latency') return mode.ms;
  if (mode.kind === 'faults' || mode.kind === 'bucket') return mode.latencyMs ?? 0;
  return 0;
}

function definitions(list: unknown[] | undefined): unknown[] {
  return (list ?? []).map((d) => ({ label: null, required: false, ...(d as object) }));
}

function recordIdOf(key: string): string {
  // A stable UUID-shaped id per record, without keeping a second map.
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  const hex = h.toString(16).padStart(8, '0');
  return `${hex}-0000-4000-8000-${hex}${hex.slice(0, 4)}`;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function emptyStats(): StandInStats {
  return { requests: 0, written: 0, throttled: 0, failed: 0, dropped: 0, maxInFlight: 0, changedBodies: 0, firstRowRequestAt: 0, firstWriteAt: 0, lastWriteAt: 0, settledAt: 0, writtenBySettled: 0 };
}

/**
 * For the latency probe: samples ferry's flow every millisecond while a run
 * goes (the pusher's requests in flight and queued, which phase of a batch
 * the unit processor is in) and, at exit, writes a summary of the samples
 * with free request slots to `path`: was the pipeline not feeding the pusher
 * (queued 0), and in which phase, or was the event loop late (the sample
 * came more than 3 ms after the last), busy or without a CPU? Also: each
 * request's send and answer times, undici's wait before writing a request,
 * the state store's commits and ledger look-ups, csv-parse's chunks, GC
 * pauses, and the main thread's run-queue wait.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { threadRunQueueMs as runQueueWaitMs } from '../thread-cpu.js';
import { PerformanceObserver } from 'node:perf_hooks';
import { Parser } from 'csv-parse';
import { Pusher } from '../../src/sink/pusher.js';
import { UnitProcessor } from '../../src/pipeline/unit-processor.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';

export function traceFlow(path: string): void {
  const pushers = new Set<Pusher>();
  let phase = 'setup';
  const waitForCapacity = Pusher.prototype.waitForCapacity;
  Pusher.prototype.waitForCapacity = function (this: Pusher) {
    pushers.add(this);
    phase = 'push';
    return waitForCapacity.call(this);
  };
  const processBatch = UnitProcessor.prototype.processBatch;
  UnitProcessor.prototype.processBatch = async function (this: UnitProcessor, items) {
    phase = 'prepare';
    try {
      return await processBatch.call(this, items);
    } finally {
      phase = 'read';
    }
  };
  // Per request: [id, when ferry began sending it, when its answer was back] (epoch ms).
  const requests: [string, number, number][] = [];
  const proto = Pusher.prototype as unknown as { send(job: { remoteId: string }): Promise<unknown> };
  const send = proto.send;
  proto.send = function (this: Pusher, job) {
    const sentAt = epochNow();
    const sent = send.call(this, job);
    void sent.then(() => requests.push([job.remoteId, sentAt, epochNow()]), () => undefined);
    return sent;
  };
  // Inside undici: request created → its headers written to the socket (waiting for a free connection?).
  const created = new WeakMap<object, number>();
  const queued = { n: 0, ms: 0, max: 0 };
  subscribe('undici:request:create', (m) => created.set((m as { request: object }).request, performance.now()));
  subscribe('undici:client:sendHeaders', (m) => {
    const at = created.get((m as { request: object }).request);
    if (at === undefined) return;
    const ms = performance.now() - at;
    queued.n++;
    queued.ms += ms;
    queued.max = Math.max(queued.max, ms);
  });
  // The state store's commits: synchronous (better-sqlite3), so the loop stops for each.
  const commits = timeCalls(SqliteStateStore.prototype, 'commit');
  // The ledger look-up of a batch's remote ids (one query per batch; the time until its promise is made).
  const lookups = timeCalls(SqliteStateStore.prototype, 'fingerprints');
  // csv-parse turns a whole chunk read from the file into records at once.
  const chunks = timeCalls(Parser.prototype, '_transform');
  // Garbage collection pauses of the main thread, by kind (performance entries).
  const gc = new Map<string, { n: number; ms: number; max: number }>();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = String((entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? '?');
      const g = gc.get(kind) ?? { n: 0, ms: 0, max: 0 };
      g.n++;
      g.ms += entry.duration;
      g.max = Math.max(g.max, entry.duration);
      gc.set(kind, g);
    }
  }).observe({ entryTypes: ['gc'] });
  const tally = new Map<string, number>();
  const lateCounts = new Map<string, number>();
  let samples = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let started = false;
  let startedAt = 0;
  let waitedAtStart = 0;
  const earlyMs = Number(process.env.PROBE_EARLY_MS ?? 0);
  const early: unknown[] = [];
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const gap = now - last;
    const busy = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
    last = now;
    lastCpu = cpu;
    const pusher = [...pushers].pop();
    if (!pusher) return;
    const stats = pusher.stats();
    if (stats.requests === 0 && !started) return;
    if (!started) {
      startedAt = now;
      waitedAtStart = runQueueWaitMs();
    }
    started = true;
    samples++;
    if (now - startedAt < earlyMs) early.push([Math.round(now - startedAt), phase, stats.inFlight, stats.queued, Math.round(gap), Math.round(busy)]);
    // A late sample: was this process busy all along (blocking work, GC), or did it not get a CPU?
    const late = gap > 3 ? (busy >= 0.7 * gap ? 'loop late, busy' : 'loop late, no CPU') : undefined;
    const key = late ? `${late} (${phase})` : stats.inFlight >= concurrencyOf(pusher) ? 'full' : stats.queued > 0 ? `free slots, queued (${phase})` : `free slots, nothing queued (${phase})`;
    tally.set(key, (tally.get(key) ?? 0) + gap);
    if (late) {
      const bucket = `${late} (${phase}) ${gap < 5 ? '3-5' : gap < 10 ? '5-10' : gap < 20 ? '10-20' : '20+'} ms`;
      lateCounts.set(bucket, (lateCounts.get(bucket) ?? 0) + 1);
    }
  }, 1);
  timer.unref();
  process.on('exit', () => writeFileSync(path, JSON.stringify({ samples, ms: Object.fromEntries([...tally].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round(v)])), late: Object.fromEntries([...lateCounts].sort()), early, commits, lookups, csvChunks: chunks, gc: Object.fromEntries(gc), runQueueMs: runQueueWaitMs() - waitedAtStart, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000, undiciCreateToHeadersSent: { mean: queued.ms / queued.n, max: queued.max }, requests })));
}

function concurrencyOf(pusher: Pusher): number {
  return (pusher as unknown as { slots: { size: number } }).slots.size;
}

const epochNow = (): number => performance.timeOrigin + performance.now();


interface CallTimes {
  n: number;
  ms: number;
  max: number;
}

/** Wraps `proto[name]` to count its calls and the synchronous time each took. */
function timeCalls(proto: object, name: string): CallTimes {
  const times: CallTimes = { n: 0, ms: 0, max: 0 };
  const target = proto as Record<string, (...args: unknown[]) => unknown>;
  const original = target[name]!;
  target[name] = function (this: unknown, ...args: unknown[]) {
    const at = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const ms = performance.now() - at;
      times.n++;
      times.ms += ms;
      times.max = Math.max(times.max, ms);
    }
  };
  return times;
}

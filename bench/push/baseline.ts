/**
 * The hand-written client ferry is measured against: stream the deals CSV
 * with csv-parse, build the same row bodies byte for byte, and keep
 * `concurrency` POSTs in flight on an undici Pool. No state, no retries.
 * Prints one JSON line.
 *
 * With `paced`, it spaces its requests as a pacing client would (no faster
 * than 1.25 × concurrency ÷ the shortest round trip seen, bursts of 2 ms;
 * written out here, not ferry's code): what a minimal client reaches at a
 * fixed latency on this machine once it does not send trains.
 *
 * Usage: tsx bench/push/baseline.ts <baseUrl> <csvPath> <concurrency> [paced]
 */
import { createReadStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse';
import { Pool } from 'undici';
import { threadCpuMs } from '../thread-cpu.js';
import { dealBody, dealTargetIds, type Deal } from './deal-body.js';

const [baseUrl, csvPath, concurrencyText, mode] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
let shortestRoundTrip = Number.POSITIVE_INFINITY;
let dueAt = Number.NEGATIVE_INFINITY;
/** Ms to wait before the next request so that requests go evenly spread (0 unless `paced`). */
function paceDelay(now: number): number {
  const interval = shortestRoundTrip / (concurrency * 1.25);
  if (mode !== 'paced' || !Number.isFinite(interval) || interval * concurrency <= 2) return 0;
  const turn = Math.max(dueAt, now - 2);
  dueAt = turn + interval;
  return Math.max(0, turn - now);
}
const pool = new Pool(baseUrl!, { connections: concurrency, pipelining: 1 });
const headers = { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer bench-key', 'user-agent': 'baseline' };

async function getJson<T>(path: string): Promise<T> {
  const res = await pool.request({ path, method: 'GET', headers });
  return (await res.body.json()) as T;
}
const { sourceId, objectTypeId } = await dealTargetIds(getJson);

const started = performance.now();
const cpuBefore = process.cpuUsage();
const mainBefore = threadCpuMs();
let sent = 0;
const inFlight = new Set<Promise<void>>();
for await (const deal of createReadStream(csvPath!).pipe(parse({ columns: true }))) {
  const bytes = Buffer.from(dealBody(deal as Deal, sourceId, objectTypeId));
  const delay = paceDelay(performance.now());
  if (delay > 0) await sleep(delay);
  const sentAt = performance.now();
  const request = pool
    .request({ path: '/v1/rows', method: 'POST', headers: { ...headers, 'content-length': String(bytes.length) }, body: bytes })
    .then(async (res) => {
      await res.body.text();
      shortestRoundTrip = Math.min(shortestRoundTrip, performance.now() - sentAt);
      if (res.statusCode !== 201) throw new Error(`HTTP ${res.statusCode}`);
    });
  const tracked: Promise<void> = request.finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
  sent++;
  if (inFlight.size >= concurrency) await Promise.race(inFlight);
}
await Promise.all(inFlight);
const cpu = process.cpuUsage(cpuBefore);
const mainCpuUs = (threadCpuMs() - mainBefore) * 1000;
const seconds = (performance.now() - started) / 1000;
await pool.close();
console.log(JSON.stringify({ seconds, records: sent, cpuUs: cpu.user + cpu.system, mainCpuUs }));

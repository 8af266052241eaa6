/**
 * What a client could reach at a fixed latency if its requests were written
 * and answered on a thread that does nothing else: the main thread streams
 * the deals CSV and builds the same bodies as the hand-written client
 * (baseline.ts), and a worker (io-thread-sender.mjs) keeps `concurrency` of
 * them in flight, with undici or with node:http. No state, no retries, no rate
 * control. Not part of `npm run bench`: a reference for the question whether
 * ferry should move its HTTP off the main thread (docs/sink.md gives the
 * figures). Prints one JSON line.
 *
 * Usage: tsx bench/push/io-thread-client.ts <baseUrl> <csvPath> <concurrency> [undici|http]
 */
import { createReadStream } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { parse } from 'csv-parse';
import { request } from 'undici';
import { dealBody, dealTargetIds, type Deal } from './deal-body.js';

const [baseUrl, csvPath, concurrencyText, transport = 'undici'] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const headers = { accept: 'application/json', authorization: 'Bearer bench-key' };
const getJson = async <T>(path: string): Promise<T> => (await (await request(`${baseUrl}${path}`, { headers })).body.json()) as T;
const { sourceId, objectTypeId } = await dealTargetIds(getJson);

const sender = new Worker(new URL('./io-thread-sender.mjs', import.meta.url), { workerData: { baseUrl, concurrency, transport } });
let answered = 0;
let sent = 0;
let wake: (() => void) | undefined;
sender.on('message', (count: number) => {
  answered += count;
  wake?.();
});
const exited = new Promise((resolve, reject) => {
  sender.once('exit', resolve);
  sender.once('error', reject);
});

const started = performance.now();
let batch: string[] = [];
const flush = () => {
  if (batch.length > 0) sender.postMessage(batch.join('\u0000'));
  batch = [];
};
for await (const deal of createReadStream(csvPath!).pipe(parse({ columns: true }))) {
  batch.push(dealBody(deal as Deal, sourceId, objectTypeId));
  sent++;
  if (batch.length >= 64) flush();
  // Bounded: no more than four rounds of requests ahead of the answers.
  while (sent - answered > concurrency * 4) {
    flush();
    await new Promise<void>((resolve) => (wake = resolve));
  }
}
flush();
sender.postMessage(null);
await exited;
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, records: sent, answered }));

/**
 * One ferry run of the deals sync against a service URL, in a process of its
 * own so that its peak RSS is its own. Prints one JSON line.
 *
 * Usage: tsx bench/push/ferry-run.ts <baseUrl> <csvPath> <concurrency> <maxRequestsPerSecond>
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runProject } from '../../src/pipeline/run-project.js';
import { writeDealsConfig } from './deals.js';

const [baseUrl, csvPath, concurrency, maxRequestsPerSecond] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'ferry-push-bench-'));
const configFile = writeDealsConfig(dir, csvPath!, baseUrl!, { concurrency: Number(concurrency), maxRequestsPerSecond: Number(maxRequestsPerSecond) });

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);
const started = performance.now();
const [summary] = await runProject({ configFile, syncNames: [], logger: pino({ level: process.env.BENCH_LOG ?? 'silent' }) });
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ seconds, counts: summary?.counts, status: summary?.status, error: summary?.error, peakRssMb: peakRss / 1024 / 1024 }));

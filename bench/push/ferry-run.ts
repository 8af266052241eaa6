/**
 * One ferry run of the deals sync against a service URL, in a process of its
 * own, with its CPU time (the whole process and the main thread). Prints one
 * JSON line. Memory is measured on the real CLI instead (ferry-cli.ts).
 *
 * Usage: tsx bench/push/ferry-run.ts <baseUrl> <csvPath> <concurrency> <maxRequestsPerSecond>
 * (`default` for either leaves it out of ferry.yaml: the adaptive limits, unbounded).
 *
 * ferry itself is loaded from dist/ (the compiled JavaScript `ferry run`
 * executes), not through tsx: tsx's transform adds work per call (it wraps
 * every closure to keep its name) and some 20-30 MB of RSS that a user never
 * pays. The push bench runs this script compiled too (test/support/compiled-script.ts),
 * so no tsx is loaded at all. BENCH_FROM_SOURCE=1 loads src/ instead, for
 * profiling a change before building (a traced run, PROBE_TRACE, always does;
 * both need tsx). `npm run bench` builds dist/ first when it is stale.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { writeDealsConfig } from './deals.js';
import { threadCpuMs } from '../thread-cpu.js';
import type * as RunProjectModule from '../../src/pipeline/run-project.js';
import type * as HeapModule from '../../src/runtime/heap.js';
import type * as FlowTraceModule from './flow-trace.js';

// The flow trace (PROBE_TRACE) patches the classes of src/, so a traced run loads src/ too.
// Absolute URLs: compiled, this script runs from a temporary folder (test/support/compiled-script.ts).
const root = resolve(import.meta.dirname, process.env.BENCH_FROM_SOURCE || process.env.PROBE_TRACE ? '../../src' : '../../dist/src');
const load = (path: string): Promise<unknown> => import(pathToFileURL(join(root, path)).href);
const { runProject } = (await load('pipeline/run-project.js')) as typeof RunProjectModule;
const { applyHeapDefaults } = (await load('runtime/heap.js')) as typeof HeapModule;

// As `ferry run` starts (src/cli/main.ts).
applyHeapDefaults();
if (process.env.PROBE_TRACE) {
  const trace = (await import(pathToFileURL(resolve(import.meta.dirname, 'flow-trace.ts')).href)) as typeof FlowTraceModule;
  trace.traceFlow(process.env.PROBE_TRACE);
}

const [baseUrl, csvPath, concurrency, maxRequestsPerSecond] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'ferry-push-bench-'));
const setting = (value: string | undefined) => (value === undefined || value === 'default' ? undefined : Number(value));
const configFile = writeDealsConfig(dir, csvPath!, baseUrl!, { concurrency: setting(concurrency), maxRequestsPerSecond: setting(maxRequestsPerSecond) });

const started = performance.now();
const cpuBefore = process.cpuUsage();
const mainBefore = threadCpuMs();
const [summary] = await runProject({ configFile, syncNames: [], logger: pino({ level: process.env.BENCH_LOG ?? 'silent' }) });
const cpu = process.cpuUsage(cpuBefore);
const mainCpuUs = (threadCpuMs() - mainBefore) * 1000;
const seconds = (performance.now() - started) / 1000;
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ seconds, counts: summary?.counts, status: summary?.status, error: summary?.error, limits: summary?.limits, cpuUs: cpu.user + cpu.system, mainCpuUs }));

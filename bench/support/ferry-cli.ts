/**
 * `ferry` as a user runs it: `node bin/ferry.js …` (dist/) in a process of
 * its own, with nothing loaded into it but process-figures.mjs, which reports
 * the process's peak RSS, CPU time and lifetime when it exits. Every bench row
 * that runs ferry goes through here (or through the exported API), never
 * through ferry's internal modules.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { writeDealsConfig, type PushSettings } from './deals.js';

const root = resolve(import.meta.dirname, '../..');
export const FERRY_BIN = join(root, 'bin/ferry.js');
const FIGURES = join(root, 'bench/support/process-figures.mjs');

/** What process-figures.mjs saw of a process. */
export interface ProcessFigures {
  peakRssMb: number;
  /** User + system CPU of the whole process, µs. */
  cpuUs: number;
  /** From the process's start to its exit, ms. */
  lifeMs: number;
}

export interface CliRun extends ProcessFigures {
  status: string;
  error?: string;
  counts: { read: number; created: number; updated: number; unchanged: number; failed: number };
  /** The sync's own time (ferry's summary): the process's life less start-up, config and exit. */
  durationMs: number;
  limits?: { concurrency: number; concurrencyReason: string; peakInFlight: number; rate?: number; rateReason: string };
}

/** Runs `node [flags] <script> …args` with process-figures.mjs preloaded; stdout and the figures. */
export async function measuredNode(script: string, args: readonly string[], options: { cwd: string; nodeFlags?: readonly string[] }): Promise<{ stdout: string } & ProcessFigures> {
  const figures = join(options.cwd, `figures-${process.pid}-${Date.now()}.json`);
  const { stdout } = await promisify(execFile)(process.execPath, [...(options.nodeFlags ?? []), '--import', FIGURES, script, ...args], {
    cwd: options.cwd,
    env: { ...process.env, FERRY_BENCH_FIGURES: figures },
    maxBuffer: 16 << 20,
  });
  return { stdout, ...(JSON.parse(readFileSync(figures, 'utf8')) as ProcessFigures) };
}

/** `ferry -c <config> run --json` in `dir`; the first sync's summary and the process's figures. */
export async function ferryRun(dir: string, config: string, options: { nodeFlags?: readonly string[]; args?: readonly string[] } = {}): Promise<CliRun> {
  const { stdout, ...figures } = await measuredNode(FERRY_BIN, ['-c', config, '--log-level', 'silent', 'run', '--json', ...(options.args ?? [])], { cwd: dir, ...options });
  const [summary] = (JSON.parse(stdout) as { syncs: Omit<CliRun, keyof ProcessFigures>[] }).syncs;
  if (!summary) throw new Error(`ferry run printed no sync summary: ${stdout.slice(0, 200)}`);
  return { ...summary, ...figures };
}

/** The deals sync over `csvPath` into `baseUrl`, its project and state in `dir` (kept: a second call is a re-run). */
export function ferryCliRun(dir: string, csvPath: string, baseUrl: string, settings: PushSettings, options: { nodeFlags?: readonly string[] } = {}): Promise<CliRun> {
  return ferryRun(dir, writeDealsConfig(dir, csvPath, baseUrl, settings), options);
}

/** `ferry -c <config> export --json` in `dir`; the first export's summary and the process's figures. */
export async function ferryExport(dir: string, config: string): Promise<ExportRun> {
  const { stdout, ...figures } = await measuredNode(FERRY_BIN, ['-c', config, '--log-level', 'silent', 'export', '--json'], { cwd: dir });
  const [summary] = (JSON.parse(stdout) as { exports: Omit<ExportRun, keyof ProcessFigures>[] }).exports;
  if (!summary) throw new Error(`ferry export printed no summary: ${stdout.slice(0, 200)}`);
  return { ...summary, ...figures };
}

export interface ExportRun extends ProcessFigures {
  status: string;
  error?: string;
  exported: number;
  /** The export's own time (ferry's summary). */
  durationMs: number;
}

/** `ferry emulator --db <db> --port 0 [args]` in a process of its own; its URL and development key once it listens. */
export async function ferryEmulator(db: string, args: readonly string[] = []): Promise<{ url: string; apiKey: string; pid: number | undefined; stop: () => void }> {
  const child = spawn(process.execPath, [FERRY_BIN, 'emulator', '--db', db, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const ready = await new Promise<{ url: string; apiKey: string }>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`ferry emulator did not start: ${out}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const apiKey = /\n\s+(sk_live_\S+)/.exec(out)?.[1];
      if (url && apiKey) {
        clearTimeout(timer);
        resolvePromise({ url, apiKey });
      }
    });
    child.on('exit', (code) => reject(new Error(`ferry emulator exited ${code}: ${out}`)));
  });
  return { ...ready, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

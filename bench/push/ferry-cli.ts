/**
 * One `ferry run` of the deals sync as a user runs it: `node bin/ferry.js run
 * --json` from dist/, in a process of its own, with nothing loaded into it but
 * peak-rss.mjs, which reports the kernel's high-water mark of its resident
 * set when it exits. The memory figures come from here: a runner hosted by
 * tsx carries tsx's loader thread and its transform (some 33 MB of RSS at
 * start) that a user's `ferry run` never does.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { writeDealsConfig, type PushSettings } from './deals.js';

const root = resolve(import.meta.dirname, '../..');

export interface CliRun {
  status: string;
  counts: { read: number; pushed: number; unchanged: number; failed: number };
  peakRssMb: number;
}

/** Runs the deals sync over `csvPath` into `baseUrl`, with its project and state in `dir` (kept: a second call is a re-run). */
export async function ferryCliRun(dir: string, csvPath: string, baseUrl: string, settings: PushSettings): Promise<CliRun> {
  const config = writeDealsConfig(dir, csvPath, baseUrl, settings);
  const peakFile = join(dir, 'peak-rss.json');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', join(root, 'bench/push/peak-rss.mjs'), join(root, 'bin/ferry.js'), '-c', config, '--log-level', 'silent', 'run', '--json'],
    { cwd: dir, env: { ...process.env, FERRY_BENCH_PEAK_FILE: peakFile }, maxBuffer: 1 << 20 },
  );
  const [summary] = (JSON.parse(stdout) as { syncs: { status: string; counts: CliRun['counts'] }[] }).syncs;
  if (!summary) throw new Error(`ferry run printed no sync summary: ${stdout.slice(0, 200)}`);
  const { peakRssMb } = JSON.parse(readFileSync(peakFile, 'utf8')) as { peakRssMb: number };
  return { status: summary.status, counts: summary.counts, peakRssMb };
}

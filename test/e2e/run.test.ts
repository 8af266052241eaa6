/**
 * `ferry run` as a user or a scheduler runs it: a spawned process, JSON logs
 * on stderr, a JSON summary, exit codes, and SIGTERM in the middle of a run.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/api/client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { EmulatorRequestMetrics } from '../../src/metrics/index.js';
import { parseExposition, total } from '../integration/metrics/prom-text.js';
import { ferry, tempProjectDir } from './spawn-ferry.js';

const PIPELINE = readFileSync(resolve(import.meta.dirname, '../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const LINES = PIPELINE.split('\r\n').filter((l) => l.length > 0);

function project(baseUrl: string, rows: number): string {
  const dir = tempProjectDir();
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data/deals.csv'), LINES.slice(0, rows + 1).join('\n') + '\n');
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: "\${FERRY_API_KEY}", concurrency: 2, maxRequestsPerSecond: 1000 }
syncs:
  - name: deals
    source: { type: csv, path: data/deals.csv, primaryKey: opportunity_id }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map:
        id: opportunity_id
        name: opportunity_id
        public: true
        fields: { stage: deal_stage, agent: sales_agent }
`,
  );
  return dir;
}

describe('ferry run (spawned)', () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  const served = new EmulatorRequestMetrics();
  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:', metrics: served });
    client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey! });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  it('logs JSON lines with run and sync ids off a TTY, prints a JSON summary, and exits 0', async () => {
    const dir = project(emulator.url, 30);
    const result = await ferry(['run', '--json', '--metrics-file', 'metrics/ferry.prom'], { cwd: dir, env: { FERRY_API_KEY: emulator.devKey! } });
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as { syncs: { sync: string; counts: { created: number } }[] };
    expect(summary.syncs[0]).toMatchObject({ sync: 'deals', counts: { created: 30 } });
    // --metrics-file: the run's counts, and as many timed requests as the emulator answered.
    const metrics = parseExposition(readFileSync(join(dir, 'metrics/ferry.prom'), 'utf8'));
    expect(total(metrics, 'ferry_records_total', { sync: 'deals', outcome: 'created' })).toBe(30);
    const seen = parseExposition(await (await fetch(`${emulator.url}/metrics`)).text());
    const answered = total(seen, 'ferry_emulator_request_duration_seconds_count');
    expect(answered).toBeGreaterThan(30);
    expect(total(metrics, 'ferry_http_request_duration_seconds_count')).toBe(answered);
    expect(total(seen, 'ferry_emulator_request_duration_seconds_count', { endpoint: 'createRow', status: '201' })).toBe(30);
    const logs = result.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const finished = logs.find((l) => l.msg === 'run finished');
    expect(finished).toMatchObject({ sync: 'deals', status: 'succeeded' });
    expect(typeof finished!.runId).toBe('string');
    expect(result.stderr + result.stdout).not.toContain(emulator.devKey!);
  });

  it('refuses --metrics-file with --queue, whose runs happen on the workers', async () => {
    const dir = project(emulator.url, 1);
    const result = await ferry(['run', '--queue', '--metrics-file', 'ferry.prom'], { cwd: dir, env: { FERRY_API_KEY: emulator.devKey! } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--metrics-file does not apply to --queue');
  });

  it('exits 1 on a config error before anything is pushed', async () => {
    const dir = project(emulator.url, 5);
    const yaml = readFileSync(join(dir, 'ferry.yaml'), 'utf8').replace('primaryKey: opportunity_id', 'primaryKey: opportunity_id, delimeter: ";"');
    writeFileSync(join(dir, 'ferry.yaml'), yaml);
    const result = await ferry(['run'], { cwd: dir, env: { FERRY_API_KEY: emulator.devKey! } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ferry\.yaml:\d+:\d+/);
    expect(result.stderr).toMatch(/delimeter/);
  });

  it('on SIGTERM finishes in-flight pushes, checkpoints, exits 3, and the next run completes without loss', async () => {
    const emulator = await startEmulator({ db: ':memory:' });
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey! });
    const dir = project(emulator.url, 200);
    emulator.setFaults({ latencyMs: 40 });
    try {
      const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../bin/ferry.js'), 'run', '--json'], {
        cwd: dir,
        env: { ...process.env, FERRY_API_KEY: emulator.devKey! },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.resume();
      // Wait until the first rows have landed, then stop the run mid-way.
      for (let i = 0; i < 200; i++) {
        const page = await client.listRows({ limit: 1 });
        if (page.rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => child.once('close', r));
      expect(code).toBe(3);
      const stopped = JSON.parse(stdout) as { syncs: { status: string; counts: { created: number } }[] };
      expect(stopped.syncs[0]!.status).toBe('aborted');
      const landedBefore = stopped.syncs[0]!.counts.created;
      expect(landedBefore).toBeGreaterThan(0);
      expect(landedBefore).toBeLessThan(200);
    } finally {
      emulator.setFaults({});
    }
    const resumed = await ferry(['run', '--json'], { cwd: dir, env: { FERRY_API_KEY: emulator.devKey! } });
    expect(resumed.code).toBe(0);
    const counts = (JSON.parse(resumed.stdout) as { syncs: { counts: { created: number; unchanged: number } }[] }).syncs[0]!.counts;
    // Everything acknowledged before the stop is unchanged now; the rest is created; nothing twice.
    expect(counts.created + counts.unchanged).toBe(200);
    let visible = 0;
    for await (const _ of client.iterateRows({ limit: 50 })) visible++;
    expect(visible).toBe(200);
    await client.close();
    await emulator.close();
  });

  it('after a SIGKILL, status shows the run abandoned and the next run starts at once and loses nothing', async () => {
    const emulator = await startEmulator({ db: ':memory:' });
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey! });
    const dir = project(emulator.url, 200);
    const env = { FERRY_API_KEY: emulator.devKey! };
    emulator.setFaults({ latencyMs: 40 });
    try {
      const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../bin/ferry.js'), 'run', '--json'], {
        cwd: dir,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
      for (let i = 0; i < 200; i++) {
        const page = await client.listRows({ limit: 1 });
        if (page.rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill('SIGKILL');
      expect(await new Promise<NodeJS.Signals | null>((r) => child.once('close', (_code, signal) => r(signal)))).toBe('SIGKILL');
    } finally {
      emulator.setFaults({});
    }
    // The lease would still be valid for most of a minute; its process is gone, so it does not count.
    const status = await ferry(['status', '--json'], { cwd: dir, env });
    const shown = (JSON.parse(status.stdout) as { syncs: { lastRun: { status: string }; abandoned?: string }[] }).syncs[0]!;
    expect(shown.lastRun.status).toBe('abandoned');
    expect(shown.abandoned).toMatch(/process \d+ is gone/);
    const state = await ferry(['state', 'show', '--json'], { cwd: dir, env });
    const lock = (JSON.parse(state.stdout) as { syncs: { lock: { held: boolean; stale?: string } }[] }).syncs[0]!.lock;
    expect(lock).toMatchObject({ held: false, stale: expect.stringMatching(/process \d+ is gone/) });

    const next = await ferry(['run', '--json'], { cwd: dir, env });
    expect(next.stderr).not.toContain('FERRY_SYNC_LOCKED');
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/took over the lock/);
    const counts = (JSON.parse(next.stdout) as { syncs: { counts: { created: number; updated: number; unchanged: number } }[] }).syncs[0]!.counts;
    expect(counts.created + counts.updated + counts.unchanged).toBe(200);
    let visible = 0;
    for await (const _ of client.iterateRows({ limit: 50 })) visible++;
    expect(visible).toBe(200);
    const runs = JSON.parse((await ferry(['status', '--json', '--runs', '2'], { cwd: dir, env })).stdout) as { syncs: { runs: { status: string }[] }[] };
    expect(runs.syncs[0]!.runs.map((r) => r.status)).toEqual(['succeeded', 'aborted']);
    await client.close();
    await emulator.close();
  });
});

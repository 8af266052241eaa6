/**
 * Three `ferry worker` processes on the local PostgreSQL, a dozen scheduled
 * syncs, and one worker killed with SIGKILL in the middle of a run: the run
 * is taken over by another worker after its lease lapses and resumes from
 * its checkpoint, every sync lands exactly, and no sync ever runs on two
 * workers at once (no overlapping runs in the shared state, and every record
 * of a sync nobody killed written exactly once service-side).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { openStateStore } from '../../../src/state/index.js';
import type { RunEntry } from '../../../src/state/index.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../helpers/postgres.js';
import { parseExposition, total } from '../metrics/prom-text.js';
import { startWriteCounter } from './write-counter.js';
import type { WriteCounter } from './write-counter.js';

const BIN = resolve(import.meta.dirname, '../../../bin/ferry.js');
const PIPELINE = readFileSync(resolve(import.meta.dirname, '../../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const [HEADER, ...LINES] = PIPELINE.split('\r\n').filter((l) => l.length > 0);

// With the slow one, a dozen scheduled syncs (as issue 12 asks).
const SMALL = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo'];
const SMALL_ROWS = 25;
const SLOW = 'slow';
const SLOW_ROWS = 240;

function syncYaml(name: string, extra = ''): string {
  return `
  - name: ${name}
    schedule: "* * * * *"
    source: { type: csv, path: data/${name}.csv, primaryKey: opportunity_id }
    target:
      type: row
      source: { name: ${name} }
      objectType: { name: deal }
      map: { id: opportunity_id, name: opportunity_id, public: true, fields: { stage: deal_stage } }${extra}`;
}

function writeProject(dir: string, baseUrl: string, schema: string, small: readonly string[] = SMALL, exportsYaml = ''): void {
  mkdirSync(join(dir, 'data'));
  for (const name of small) writeFileSync(join(dir, `data/${name}.csv`), [HEADER, ...LINES.slice(0, SMALL_ROWS)].join('\n') + '\n');
  writeFileSync(join(dir, `data/${SLOW}.csv`), [HEADER, ...LINES.slice(0, SLOW_ROWS)].join('\n') + '\n');
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: "\${FERRY_API_KEY}", concurrency: 4, maxRequestsPerSecond: 1000 }
state: { url: "${PG_URL}", schema: ${schema} }
syncs:${small.map((n) => syncYaml(n)).join('')}${syncYaml(SLOW, '\n    concurrency: 2\n    maxRequestsPerSecond: 40')}
${exportsYaml}`,
  );
}

interface Worker {
  child: ChildProcess;
  id: Promise<string>;
  healthPort: Promise<number>;
  exited: Promise<number | null>;
  stderr: () => string;
}

function spawnWorker(dir: string, apiKey: string): Worker {
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '-c', 'ferry.yaml', '--lease-seconds', '2', '--retry-delay', '1', '--concurrency', '2', '--health-port', '0'],
    { cwd: dir, env: { ...process.env, FERRY_API_KEY: apiKey, FERRY_LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const started = new Promise<{ worker: string; healthPort: number }>((resolveStarted, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const line = stderr.split('\n').find((l) => l.includes('"worker started"'));
      if (line) resolveStarted(JSON.parse(line) as { worker: string; healthPort: number });
    });
    child.once('exit', () => reject(new Error(`worker exited before starting:\n${stderr}`)));
  });
  started.catch(() => undefined);
  return {
    child,
    id: started.then((s) => s.worker),
    healthPort: started.then((s) => s.healthPort),
    exited: new Promise((resolveExit) => child.once('exit', (code) => resolveExit(code))),
    stderr: () => stderr,
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('ferry worker × 3 on PostgreSQL', () => {
  let emulator: RunningEmulator;
  let counter: WriteCounter;
  let dir: string;
  const schema = freshSchema('ferry_w');
  const workers: Worker[] = [];

  /** Service-side writes of one sync's records so far. */
  const writesOf = (sync: string): number => {
    const source = emulator.store.db.prepare('SELECT id FROM sources WHERE name = ?').get(sync) as { id: string } | undefined;
    if (source === undefined) return 0;
    return [...counter.writes].filter(([key]) => key.startsWith(`${source.id}/`)).reduce((sum, [, n]) => sum + n, 0);
  };

  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    counter = await startWriteCounter(emulator.url);
    dir = mkdtempSync(join(tmpdir(), 'ferry-workers-'));
    writeProject(dir, counter.url, schema);
  });

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await counter.close();
    await emulator.close();
    await dropSchemas(schema, `${schema}_queue`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs every scheduled sync once, survives a SIGKILLed worker, and never runs a sync twice at once', async () => {
    const apiKey = emulator.devKey!;
    for (let i = 0; i < 3; i++) workers.push(spawnWorker(dir, apiKey));
    const ids = await Promise.all(workers.map((w) => w.id));

    // Health and readiness.
    const port = await workers[0]!.healthPort;
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ worker: ids[0], ready: true });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    // The schedule queues the slow sync; kill its worker once it is well into the run.
    const victimId = await until('the slow sync to be well into its run', async () => {
      const rows = await pgQuery<{ worker: string | null }>(
        `SELECT output->>'worker' AS worker FROM "${schema}_queue".job WHERE name = 'ferry-sync-${SLOW}' AND state = 'active'`,
      );
      return rows[0]?.worker && writesOf(SLOW) > 120 ? rows[0].worker : undefined;
    });
    const victim = workers[ids.indexOf(victimId)]!;
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBeNull();

    const done = await until('every sync to finish', async () => {
      const rows = await pgQuery<{ name: string; worker: string }>(
        `SELECT DISTINCT ON (name) name, output->>'worker' AS worker FROM "${schema}_queue".job
         WHERE name LIKE 'ferry-sync-%' AND state = 'completed' ORDER BY name, completed_on`,
      );
      return rows.length === SMALL.length + 1 ? rows : undefined;
    }, 90_000);
    const slowJob = done.find((r) => r.name === `ferry-sync-${SLOW}`);
    expect(slowJob?.worker).not.toBe(victimId);

    // End state exact, per sync, service-side.
    const landed = emulator.store.db
      .prepare('SELECT s.name AS name, count(*) AS n FROM records r JOIN sources s ON s.id = r.source_id WHERE r.deleted_ms IS NULL GROUP BY s.name')
      .all() as { name: string; n: number }[];
    expect(Object.fromEntries(landed.map((r) => [r.name, r.n]))).toEqual({
      ...Object.fromEntries(SMALL.map((n) => [n, SMALL_ROWS])),
      [SLOW]: SLOW_ROWS,
    });

    // Never two workers on one sync: runs of a sync never overlap, and records of syncs nobody killed were written once.
    const store = await openStateStore(PG_URL, { schema });
    try {
      for (const sync of [...SMALL, SLOW]) {
        const runs = (await store.runs({ sync })).reverse();
        expectNoOverlap(sync, runs);
        expect(runs.find((r) => r.status === 'succeeded')).toBeDefined();
      }
      // The schedule fires every minute, so a sync may have run again since: look at the first two runs.
      const slowRuns = (await store.runs({ sync: SLOW })).reverse();
      expect(slowRuns.slice(0, 2).map((r) => r.status)).toEqual(['aborted', 'succeeded']);
      // Resumed from the checkpoint: what the dead worker had committed cost the new run no request.
      expect(slowRuns[1]!.counts.unchanged).toBeGreaterThan(0);
      expect(slowRuns[1]!.counts.created + slowRuns[1]!.counts.updated).toBeLessThan(SLOW_ROWS);
    } finally {
      await store.close();
    }
    const sourceIds = Object.fromEntries(
      (emulator.store.db.prepare('SELECT id, name FROM sources').all() as { id: string; name: string }[]).map((s) => [s.id, s.name]),
    );
    for (const [key, n] of counter.writes) {
      if (sourceIds[key.split('/')[0]!] !== SLOW) expect({ key, n }).toEqual({ key, n: 1 });
    }

    // `ferry run --queue --wait` goes through the same queue and reports the outcome as the exit code.
    const queued = await runFerry(dir, apiKey, ['run', '--queue', '--wait', 'alpha']);
    expect(queued.stdout).toMatch(/sync alpha: queued job .* → succeeded \(exit 0\)/);
    expect(queued.code).toBe(0);

    // `ferry status` shows the finished runs and which worker ran them.
    const status = await runFerry(dir, apiKey, ['status', '--json']);
    const parsed = JSON.parse(status.stdout) as { queue: { name: string; state: string; worker: string | null }[] };
    expect(parsed.queue.filter((e) => e.state === 'succeeded').map((e) => e.name)).toEqual(expect.arrayContaining([...SMALL, SLOW]));
    expect(parsed.queue.every((e) => e.worker === null || ids.includes(e.worker))).toBe(true);

    // /metrics beside /healthz: the survivors counted the slow sync's resumed run, which one of them finished.
    const survivors = workers.filter((w) => w !== victim);
    const scraped = await Promise.all(survivors.map(async (w) => parseExposition(await (await fetch(`http://127.0.0.1:${await w.healthPort}/metrics`)).text())));
    const sum = (name: string, labels: Record<string, string>) => scraped.reduce((n, samples) => n + total(samples, name, labels), 0);
    expect(sum('ferry_runs_total', { sync: SLOW, status: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(sum('ferry_records_total', { sync: SLOW, outcome: 'unchanged' })).toBeGreaterThan(0);
    expect(sum('ferry_http_request_duration_seconds_count', { endpoint: 'createRow' })).toBeGreaterThan(0);

    // SIGTERM: the survivors drain and exit cleanly.
    for (const w of survivors) w.child.kill('SIGTERM');
    expect(await Promise.all(survivors.map((w) => w.exited))).toEqual([0, 0]);
  }, 150_000);
});

describe('ferry worker SIGTERM', () => {
  let emulator: RunningEmulator;
  let dir: string;
  const schema = freshSchema('ferry_w');
  const workers: Worker[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    dir = mkdtempSync(join(tmpdir(), 'ferry-workers-'));
    // An export rides along: workers run exports from the same queue.
    writeProject(dir, emulator.url, schema, [], 'exports:\n  - { name: rows-out, resource: rows, schedule: "* * * * *", destination: { type: file, path: out/rows.csv } }\n');
  });

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await emulator.close();
    await dropSchemas(schema, `${schema}_queue`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('checkpoints, releases and hands the run back; another worker finishes it', async () => {
    for (let i = 0; i < 2; i++) workers.push(spawnWorker(dir, emulator.devKey!));
    const ids = await Promise.all(workers.map((w) => w.id));
    const store = await openStateStore(PG_URL, { schema });
    try {
      const running = await until('the slow sync to have checkpointed', async () => {
        const rows = await pgQuery<{ worker: string | null }>(
          `SELECT output->>'worker' AS worker FROM "${schema}_queue".job WHERE name = 'ferry-sync-${SLOW}' AND state = 'active'`,
        );
        return rows[0]?.worker && (await store.countLive(SLOW)) > 40 ? rows[0].worker : undefined;
      });
      const stopped = workers[ids.indexOf(running)]!;
      stopped.child.kill('SIGTERM');
      expect(await stopped.exited).toBe(0);
      // It released the lock itself (no lease left to lapse) and recorded the run as stopped after checkpointing.
      expect(await store.lockHolder(SLOW)).toBeUndefined();
      const [first] = await store.runs({ sync: SLOW });
      expect(first).toMatchObject({ status: 'aborted', error: expect.stringMatching(/checkpointing/) });
      const live = await store.countLive(SLOW);

      await until('the run to finish on the other worker', async () => ((await store.lastRun(SLOW))?.status === 'succeeded' ? true : undefined));
      const [second] = await store.runs({ sync: SLOW });
      expect(second!.counts.unchanged).toBeGreaterThanOrEqual(live); // everything checkpointed before SIGTERM cost no request
      expect(await store.countLive(SLOW)).toBe(SLOW_ROWS);
      const job = await pgQuery<{ worker: string }>(`SELECT output->>'worker' AS worker FROM "${schema}_queue".job WHERE name = 'ferry-sync-${SLOW}' AND state = 'completed'`);
      expect(job[0]?.worker).toBe(ids.find((id) => id !== running));
      // The export is scheduled every minute, so a newer run may have started by now: one that finished is what counts.
      await until('a scheduled export run to have succeeded', async () =>
        (await store.runs({ sync: 'export:rows-out' })).some((r) => r.status === 'succeeded') ? true : undefined,
        70_000, // at most one minute boundary away
      );
    } finally {
      await store.close();
    }
  }, 160_000);
});

function expectNoOverlap(sync: string, runs: readonly RunEntry[]): void {
  for (let i = 1; i < runs.length; i++) {
    const previous = runs[i - 1]!;
    expect({ sync, previousFinished: previous.finishedAt !== null }).toEqual({ sync, previousFinished: true });
    expect(Date.parse(runs[i]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(previous.finishedAt!));
  }
}

function runFerry(dir: string, apiKey: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, FERRY_API_KEY: apiKey }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/**
 * The run orchestrator with units of its own (no source, no pushes) against a
 * project on the embedded emulator: what the listeners see and when, what a
 * unit that throws becomes, when a run stops early, and whose store is closed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../../src/config/index.js';
import { RunFailure } from '../../../src/pipeline/run-summary.js';
import type { RunSummary } from '../../../src/pipeline/run-summary.js';
import { orchestrateRun } from '../../../src/run/orchestrator.js';
import type { FinishedRun, RunListener, RunResult, RunUnit } from '../../../src/run/orchestrator.js';
import { loadProject, openProjectState } from '../../../src/runtime/project.js';
import { FerryError } from '../../../src/sdk/errors.js';
import { emptyCounts } from '../../../src/state/index.js';

const logger = pino({ level: 'silent' });

function unit(name: string, run: () => Promise<RunResult>, events: string[] = []): RunUnit<RunResult> {
  return {
    kind: 'sync',
    name,
    owner: name,
    async run(ctx) {
      events.push(`run ${name}`);
      ctx.hooks.onCheckpoint?.(emptyCounts());
      return run();
    },
    failed: (error) => ({ runId: null, status: 'failed', counts: emptyCounts(), durationMs: 0, exitCode: 3, error: String(error), ...(error instanceof FerryError ? { errorCode: error.code } : {}) }),
  };
}

const ok = (status: RunResult['status'] = 'succeeded') => async (): Promise<RunResult> => ({ runId: 'r', status, counts: { ...emptyCounts(), read: 1 }, durationMs: 1, exitCode: status === 'partial' ? 2 : 0 });
const fails = (error: unknown) => async (): Promise<RunResult> => {
  throw error;
};

/** Records every event a listener sees, in order. */
function recorder(events: string[], finished: FinishedRun[] = []): RunListener {
  return {
    unitStarted: (u) => {
      events.push(`start ${u.name}`);
      return { onCheckpoint: () => events.push(`checkpoint ${u.name}`), finished: (s, error) => events.push(`finish ${u.name} ${s.status}${error === undefined ? '' : ' threw'}`) };
    },
    runFinished: (run) => {
      events.push(`end ${run.status}`);
      finished.push(run);
    },
  };
}

describe('the run orchestrator', () => {
  let config: LoadedConfig;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-orchestrator-'));
    writeFileSync(join(dir, 'ferry.yaml'), 'version: 1\nservice: { baseUrl: embedded }\nemulator: { db: ":memory:" }\nstate: { url: "sqlite:state/ferry.db" }\nsyncs: []\n');
    config = await loadProject(join(dir, 'ferry.yaml'));
  });

  it('runs each unit in turn, watched by every listener, and tells them how the run ended', async () => {
    const events: string[] = [];
    const finished: FinishedRun[] = [];
    const run = await orchestrateRun({
      kind: 'run',
      config,
      logger,
      units: [unit('a', ok(), events), unit('b', ok('partial'), events)],
      stop: { signal: new AbortController().signal },
      listeners: [recorder(events, finished), undefined],
    });
    expect(run.summaries.map((s) => s.status)).toEqual(['succeeded', 'partial']);
    expect(run.failure).toBeUndefined();
    expect(events).toEqual(['start a', 'run a', 'checkpoint a', 'finish a succeeded', 'start b', 'run b', 'checkpoint b', 'finish b partial', 'end partial']);
    expect(finished[0]).toMatchObject({ kind: 'run', status: 'partial' });
  });

  it('turns a unit that threw into its failed summary and goes on, but stops once the service is gone', async () => {
    const events: string[] = [];
    const run = await orchestrateRun({
      kind: 'run',
      config,
      logger,
      units: [
        unit('a', fails(new Error('boom'))),
        unit('b', fails(new FerryError('FERRY_SERVICE_AUTH', 'key refused'))),
        unit('c', ok()),
      ],
      stop: { signal: new AbortController().signal },
      listeners: [recorder(events)],
    });
    expect(run.summaries.map((s) => s.status)).toEqual(['failed', 'failed']);
    expect(run.failure?.unit.name).toBe('a');
    expect(events).toEqual(['start a', 'checkpoint a', 'finish a failed threw', 'start b', 'checkpoint b', 'finish b failed threw', 'end failed']);
  });

  it('with failFast runs no unit after one that threw', async () => {
    const run = await orchestrateRun({
      kind: 'job',
      config,
      logger,
      units: [unit('a', ok()), unit('b', fails(new Error('lock held'))), unit('c', ok())],
      stop: { signal: new AbortController().signal },
      failFast: true,
    });
    expect(run.summaries).toHaveLength(2);
    expect(run.failure?.unit.name).toBe('b');
  });

  it('runs nothing once stopped, and keeps the outcome when a listener fails at the end', async () => {
    const stop = new AbortController();
    const events: string[] = [];
    const first = unit('a', async () => {
      stop.abort();
      return ok()();
    });
    const run = await orchestrateRun({
      kind: 'run',
      config,
      logger,
      units: [first, unit('b', ok())],
      stop: { signal: stop.signal },
      listeners: [{ runFinished: () => Promise.reject(new Error('alert not sent')) }, recorder(events)],
    });
    expect(run.summaries).toHaveLength(1);
    expect(events.at(-1)).toBe('end succeeded');
  });

  it('leaves the caller\'s store open and closes the one it opened', async () => {
    const store = await openProjectState(config);
    try {
      await orchestrateRun({ kind: 'job', config, logger, units: [unit('a', ok())], stop: { signal: new AbortController().signal }, store, budget: 'none' });
      await expect(store.runs({ limit: 1 })).resolves.toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('RunFailure', () => {
  const summary: RunSummary = { sync: 's', runId: 'r1', status: 'failed', counts: { ...emptyCounts(), created: 2 }, durationMs: 5, cursor: null, changes: [], exitCode: 3 };

  it('stands for the error it wraps (code, message, hint, where, stack) and carries the run\'s summary', () => {
    const cause = new Error('socket hang up');
    const original = new FerryError('FERRY_SERVICE_UNREACHABLE', 'service gone', { hint: 'check the URL', where: 'sync s', cause });
    const failure = new RunFailure(original, summary);
    expect(failure).toBeInstanceOf(FerryError);
    expect(failure).toMatchObject({ code: 'FERRY_SERVICE_UNREACHABLE', message: 'service gone', hint: 'check the URL', where: 'sync s', cause, summary });
    expect(failure.stack).toBe(original.stack);
    expect(failure.describe()).toBe(original.describe());
  });
});

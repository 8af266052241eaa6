/**
 * status, failures and state, driven through the CLI's own entry point
 * in-process (spawning costs seconds per command): a scaffolded project, a
 * real state file and the embedded emulator, with stdout and stderr captured.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaffoldProject } from '../../../src/cli/init.js';
import { main } from '../../../src/cli/main.js';
import { openStateStore } from '../../../src/state/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-cli-'));
const configFile = join(dir, 'ferry.yaml');
const saved = { ...process.env };

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(format(...a)));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(format(...a)));
  try {
    const code = await main(['-c', configFile, ...args]);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

async function json<T>(...args: string[]): Promise<T> {
  const result = await cli(...args);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

interface StatusJson {
  syncs: {
    sync: string;
    configured: boolean;
    lastRun: { status: string; counts: Record<string, number> } | null;
    cursor: unknown;
    openFailures: number;
    liveRecords: number;
    runs?: unknown[];
  }[];
}
interface FailuresJson {
  total: number;
  failures: { sync: string; kind: string; remoteId: string | null; origin: string | null; reason: string; sourceRecord: unknown }[];
}
interface StateJson {
  stateUrl: string;
  syncs: { sync: string; cursor: unknown; liveRecords: number; openFailures: number; lock: { held: boolean } }[];
}

beforeAll(() => {
  delete process.env.FERRY_BASE_URL;
  delete process.env.FERRY_API_KEY;
  process.env.FERRY_LOG_LEVEL = 'error';
  // The ending error as text (console.error, captured above), as on a terminal.
  process.env.FERRY_LOG_FORMAT = 'pretty';
  // The scaffold's emulator file (in the temp dir): runs must see what earlier runs pushed.
  scaffoldProject(dir);
});
afterAll(() => {
  process.env = saved;
});

describe('on a project that never ran', () => {
  it('status, failures list and state show are empty and exit 0', async () => {
    const status = await json<StatusJson>('status', '--json');
    expect(status.syncs).toEqual([{ sync: 'example', configured: true, lastRun: null, cursor: null, openFailures: 0, liveRecords: 0 }]);

    const human = await cli('status');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^example +never run/m);

    const failures = await cli('failures', 'list');
    expect(failures).toMatchObject({ code: 0, stdout: 'No failures.' });

    const state = await json<StateJson>('state', 'show', '--json');
    expect(state.stateUrl).toBe(`sqlite:${join(dir, 'state/ferry.db')}`);
    expect(state.syncs[0]).toMatchObject({ sync: 'example', cursor: null, liveRecords: 0, openFailures: 0, lock: { held: false } });
  });

  it('a sync name known neither to the config nor to the state is a usage error', async () => {
    for (const args of [['status', 'nope'], ['failures', 'list', 'nope'], ['state', 'reset', 'nope', '--yes']]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain('known syncs: example');
    }
  });

  it('rejects malformed numeric flags', async () => {
    expect((await cli('status', '--runs', 'two')).code).toBe(1);
    expect((await cli('failures', 'list', '--limit', '0')).code).toBe(1);
  });
});

describe('after runs with a rejected record', () => {
  beforeAll(async () => {
    expect((await cli('run')).code).toBe(0);
    appendFileSync(join(dir, 'data/sample.csv'), 'BADROW01,Zane Levy,GTX Basic,Hatfan,Won,2016-10-25,2017-03-02,not-a-number\n');
    expect((await cli('run')).code).toBe(2);
  });

  it('status shows the last run, open failures, live records and the last N runs', async () => {
    const status = await json<StatusJson>('status', 'example', '--json', '--runs', '5');
    const [example] = status.syncs;
    expect(example).toMatchObject({ sync: 'example', openFailures: 1, liveRecords: 8 });
    expect(example?.lastRun).toMatchObject({ status: 'partial', counts: { read: 9, unchanged: 8, failed: 1, created: 0 } });
    expect(example?.runs).toHaveLength(2);

    const human = await cli('status', '--runs', '1');
    expect(human.stdout).toMatch(/^example +partial +just now/m);
    expect(human.stdout).toContain('Runs of example:');
    expect(human.stdout).toContain('ferry failures list example');
  });

  it('failures list shows the origin, kind and reason', async () => {
    const listed = await json<FailuresJson>('failures', 'list', 'example', '--json');
    expect(listed.total).toBe(1);
    expect(listed.failures[0]).toMatchObject({ sync: 'example', kind: 'invalid' });
    expect(listed.failures[0]?.origin).toMatch(/sample\.csv:10$/);
    expect(listed.failures[0]?.reason).not.toBe('');

    const human = await cli('failures', 'list');
    expect(human.stdout.split('\n')[0]).toMatch(/^ID +SYNC +WHEN +KIND +STATUS +REMOTE ID +ORIGIN +REASON$/);
    expect(human.stdout).toMatch(/example .*invalid .*sample\.csv:10/);
  });

  it('purge refuses without --yes when stdin is not a terminal, and purges with it', async () => {
    const refused = await cli('failures', 'purge');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--yes');
    expect((await json<FailuresJson>('failures', 'list', '--json')).total).toBe(1);

    const purged = await cli('failures', 'purge', 'example', '--yes');
    expect(purged).toMatchObject({ code: 0, stdout: 'Purged 1 failure of sync example.' });
    expect((await json<FailuresJson>('failures', 'list', '--json')).total).toBe(0);
  });

  it('retry replays the dead-letter with the fixed mapping', async () => {
    expect((await cli('run')).code).toBe(2);
    const pipeline = join(dir, 'pipelines/example.yaml');
    writeFileSync(
      pipeline,
      readFileSync(pipeline, 'utf8').replace('amount: $number(close_value)', `amount: 'close_value = "not-a-number" ? 0 : $number(close_value)'`),
    );
    const retried = await cli('failures', 'retry');
    expect(retried.code, retried.stderr).toBe(0);
    const status = await json<StatusJson>('status', '--json');
    expect(status.syncs[0]).toMatchObject({ openFailures: 0, liveRecords: 9 });

    const nothing = await cli('failures', 'retry', 'example');
    expect(nothing).toMatchObject({ code: 0, stdout: 'No failures to retry for sync example.' });
  });
});

describe('state reset', () => {
  it('refuses while another process holds the sync lock, and state show reports it', async () => {
    const store = await openStateStore(`sqlite:${join(dir, 'state/ferry.db')}`);
    try {
      expect(await store.acquireLock('example', 'someone-else', 60_000)).toBe(true);
      const shown = await json<StateJson>('state', 'show', 'example', '--json');
      expect(shown.syncs[0]?.lock.held).toBe(true);
      const refused = await cli('state', 'reset', 'example', '--yes');
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('FERRY_SYNC_LOCKED');
      expect((await json<StateJson>('state', 'show', '--json')).syncs[0]?.liveRecords).toBe(9);
    } finally {
      await store.releaseLock('example', 'someone-else');
      await store.close();
    }
  });

  it('--cursor-only keeps the ledger; a full reset forgets it', async () => {
    const cursorOnly = await cli('state', 'reset', 'example', '--cursor-only', '--yes');
    expect(cursorOnly).toMatchObject({ code: 0, stdout: 'Reset the cursor of sync example.' });
    expect((await json<StateJson>('state', 'show', '--json')).syncs[0]).toMatchObject({ cursor: null, liveRecords: 9 });

    const refused = await cli('state', 'reset', 'example');
    expect(refused.code).toBe(1);

    const full = await cli('state', 'reset', 'example', '--yes');
    expect(full.code, full.stderr).toBe(0);
    expect((await json<StateJson>('state', 'show', '--json')).syncs[0]).toMatchObject({ cursor: null, liveRecords: 0, openFailures: 0 });
    const human = await cli('state', 'show');
    expect(human.stdout).toContain('none (the next run reads everything)');
    expect(human.stdout).toMatch(/lock +free/);
  });
});

describe('ask', () => {
  it('exits 3 with FERRY_ASK_FAILED when the answer outlives --timeout', async () => {
    // The embedded emulator keeps a run going for 1.5 s; half a second is not enough.
    const result = await cli('ask', 'Which deals were won?', '--timeout', '0.5');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('FERRY_ASK_FAILED');
  });

  it('refuses an empty question and a bad timeout as usage errors', async () => {
    expect((await cli('ask', '  ')).code).toBe(1);
    expect((await cli('ask', 'q', '--timeout', 'soon')).code).toBe(1);
  });
});

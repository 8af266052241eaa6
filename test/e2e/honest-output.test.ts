/**
 * What a scheduler and a person read from ferry: failures at level error with
 * nothing but JSON on stderr, the log options, a dry run that says so, usage
 * errors for nonsense counts, a state store that cannot be opened, and a
 * state file that starts everything over.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

/** Every stderr line, parsed; fails the test when one is not JSON. */
function jsonLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stderr line is not JSON: ${line}\n--- stderr:\n${stderr}`);
      }
    });
}

async function scaffold(): Promise<string> {
  const dir = tempProjectDir('ferry-output-');
  const init = await ferry(['init'], { cwd: dir });
  expect(init.code, init.stderr).toBe(0);
  return dir;
}

describe('honest output', () => {
  let emulator: RunningEmulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    dir = await scaffold();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('logs a failed run at level error, with only JSON lines on stderr', async () => {
    const result = await ferry(['run'], { cwd: dir, env: { FERRY_BASE_URL: emulator.url, FERRY_API_KEY: 'sk_live_not-a-key' } });
    expect(result.code).toBe(3);
    const lines = jsonLines(result.stderr);
    const errors = lines.filter((l) => l.level === 50);
    expect(errors.length, result.stderr).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ code: 'FERRY_SERVICE_AUTH', exitCode: 3 });
    expect(result.stderr).not.toContain('sk_live_not-a-key');
  });

  it('says a dry run is a dry run, in the table, the JSON summary and the logs', async () => {
    const table = await ferry(['run', '--dry-run'], { cwd: dir });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^DRY RUN: nothing was pushed/m);
    expect(table.stdout).toMatch(/example +succeeded \(dry run\) +8 +8/);
    expect(jsonLines(table.stderr).filter((l) => l.sync === 'example').every((l) => l.dryRun === true)).toBe(true);
    const json = await ferry(['run', '--dry-run', '--json'], { cwd: dir });
    expect(jsonOf(json)).toMatchObject({ dryRun: true, syncs: [{ sync: 'example', counts: { created: 8 } }] });
  });

  it('honours --quiet, --log-level, --log-format pretty and NO_COLOR', async () => {
    const quiet = await ferry(['--quiet', 'run', '--dry-run'], { cwd: dir });
    expect(quiet.code).toBe(0);
    expect(jsonLines(quiet.stderr).filter((l) => (l.level as number) < 40)).toEqual([]);
    const debug = await ferry(['run', '--dry-run', '--log-level', 'debug'], { cwd: dir });
    expect(jsonLines(debug.stderr).some((l) => l.level === 20)).toBe(true);

    const coloured = await ferry(['run', '--dry-run', '--log-format', 'pretty'], { cwd: dir, env: { FORCE_COLOR: '1' } });
    expect(coloured.code).toBe(0);
    expect(coloured.stderr).toMatch(/INFO.*run finished/);
    expect(coloured.stderr).toContain('\u001b[');
    const plain = await ferry(['run', '--dry-run', '--log-format', 'pretty'], { cwd: dir, env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stderr).toMatch(/INFO.*run finished/);
    expect(plain.stderr).not.toContain('\u001b[');

    const wrong = await ferry(['run', '--log-format', 'xml'], { cwd: dir });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/--log-format/);
  });

  it('refuses preview counts that are not whole numbers of at least 1', async () => {
    for (const n of ['abc', '0', '-2', '1.5']) {
      const result = await ferry(['preview', 'example', '-n', n], { cwd: dir });
      expect(result.code, n).toBe(1);
      expect(result.stderr).toMatch(/FERRY_USAGE.*--limit takes a whole number ≥ 1/);
    }
    const one = await ferry(['preview', 'example', '-n', '1', '--json'], { cwd: dir });
    expect((jsonOf(one) as { samples: unknown[] }).samples).toHaveLength(1);
  });

  it('names a state store that cannot be opened with FERRY_STATE_ERROR and a hint', async () => {
    const bad = await scaffold();
    // A folder cannot be created below a regular file.
    writeFileSync(join(bad, 'ferry.yaml'), readFileSync(join(bad, 'ferry.yaml'), 'utf8').replace('sqlite:state/ferry.db', 'sqlite:data/sample.csv/state/ferry.db'));
    const result = await ferry(['run', '--log-format', 'pretty'], { cwd: bad });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/FERRY_STATE_ERROR: cannot open the state store sqlite:.*sample\.csv/);
    expect(result.stderr).toMatch(/hint: state\.url must name a SQLite file/);
  });

  it('logs that a missing or empty state file starts every sync over', async () => {
    const fresh = await scaffold();
    const first = await ferry(['run'], { cwd: fresh });
    expect(first.code, first.stderr).toBe(0);
    expect(jsonLines(first.stderr).find((l) => String(l.msg).startsWith('no state file yet'))).toMatchObject({ level: 30 });

    mkdirSync(join(fresh, 'state'), { recursive: true });
    writeFileSync(join(fresh, 'state/ferry.db'), '');
    const emptied = await ferry(['run'], { cwd: fresh });
    expect(emptied.code, emptied.stderr).toBe(0);
    expect(jsonLines(emptied.stderr).find((l) => String(l.msg).startsWith('the state file is empty'))).toMatchObject({ level: 40 });
  });
});

/**
 * The project commands as a user runs them, each step a real
 * `node bin/ferry.js` process: a scaffold taken from `init` through `check`
 * and `run` to `ask`, and `check` on broken projects. Steps share the
 * project, so they run in order. (Spawns are slow; status, failures and state
 * are covered in-process by test/unit/cli/inspect-commands.test.ts.)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const HAS_EMULATOR = existsSync(resolve(import.meta.dirname, '../../src/emulator/index.ts'));

describe('a scaffolded project, from init to ask', () => {
  const dir = tempProjectDir();

  it('init writes the scaffold and refuses to overwrite it without --force', async () => {
    const first = await ferry(['init'], { cwd: dir });
    expect(first.code).toBe(0);
    for (const file of ['ferry.yaml', 'pipelines/example.yaml', 'data/sample.csv', '.env.example', '.gitignore']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    expect(first.stdout).toContain('ferry check');
    expect(first.stdout).toContain('ferry preview example');

    writeFileSync(join(dir, '.env.example'), 'MINE=1\n');
    const again = await ferry(['init'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ferry.yaml');
    expect(again.stderr).toContain('--force');
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).toBe('MINE=1\n');
  });

  it('check passes on the scaffold, against the embedded emulator', async () => {
    const result = await ferry(['check', '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = jsonOf(result) as { ok: boolean; items: { kind: string; ok: boolean }[] };
    expect(report.ok).toBe(true);
    expect(report.items.map((i) => i.kind)).toEqual(['config', 'sync', 'state', 'source', 'service', 'scopes', 'target']);
  });

  it('the scaffold runs as is against the embedded emulator', async () => {
    const result = await ferry(['run'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
  });

  it.skipIf(!HAS_EMULATOR)('ask answers from the pushed records through the embedded emulator', async () => {
    const result = await ferry(['ask', 'Which deals did Darcel Schlecht work on?', '--json', '--timeout', '60'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const run = jsonOf(result) as { status: string; output?: string };
    expect(run.status).toBe('completed');
    expect(run.output).toContain('Darcel Schlecht');
  });
});

describe('check on a broken project', () => {
  const dir = tempProjectDir();
  beforeAll(() => {
    writeFileSync(
      join(dir, 'ferry.yaml'),
      [
        'version: 1',
        'service:',
        '  baseUrl: embedded',
        '  concurrency: lots',
        'syncs:',
        '  - name: Bad Name',
        '    source: { type: csv, path: x.csv }',
        '    target:',
        '      type: row',
        '      source: { name: crm }',
        '      map: { id: id }',
        '',
      ].join('\n'),
    );
  });

  it('lists every problem with file:line:col on stderr and exits 1', async () => {
    const result = await ferry(['check'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('✗ config');
    expect(result.stderr).toMatch(/ferry\.yaml:4:\d+ +service\.concurrency/);
    expect(result.stderr).toMatch(/ferry\.yaml:6:\d+ +syncs\[0\]\.name/);
    expect(result.stderr).toMatch(/ferry\.yaml:\d+:\d+ +syncs\[0\]\.target\.objectType/);
  });
});

describe.skipIf(!HAS_EMULATOR)('check against a service whose key lacks a scope', () => {
  const dir = tempProjectDir();
  const key = 'read-only-key-4f2a9c';
  let emulator: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    emulator = await startEmulator({
      db: ':memory:',
      keys: { [key]: { orgId: '00000000-0000-4000-8000-000000000001', scopes: ['read'], revoked: false } },
    });
    const init = await ferry(['init'], { cwd: dir });
    expect(init.code).toBe(0);
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('reports the missing scope, exits 3, and never prints the key', async () => {
    const result = await ferry(['check'], { cwd: dir, env: { FERRY_BASE_URL: emulator!.url, FERRY_API_KEY: key } });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('✓ service');
    expect(result.stderr).toMatch(/✗ scopes .*lacks ingest/);
    expect(result.stdout + result.stderr).not.toContain(key);
  });
});

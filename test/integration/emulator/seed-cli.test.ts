/**
 * The generated seed through the command line: `ferry emulator seed` writes
 * one, `ferry emulator --seed demo` serves one, and `emulator.seed: demo` in
 * ferry.yaml feeds the embedded emulator that `ferry ask` talks to.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { format } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { seedDataset } from '../../../src/emulator/seed/format.js';

const BIN = resolve(import.meta.dirname, '../../../bin/ferry.js');
const dir = mkdtempSync(join(tmpdir(), 'ferry-seed-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(format(...a)));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(format(...a)));
  try {
    const code = await main(args);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('ferry emulator seed', () => {
  it('writes a valid, deterministic seed file', async () => {
    const file = join(dir, 'seed.json');
    const org = '6f1c0a52-8d5e-4a8e-9a43-0f3a1b2c3d4e';
    const first = await cli('emulator', 'seed', '--limit', '30', '--org', org, '--out', file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/30 deals, 85 accounts, 36 conversations, \d+ messages, 38 documents/);
    const text = readFileSync(file, 'utf8');
    const seed = seedDataset.parse(JSON.parse(text));
    expect(seed.orgId).toBe(org);
    expect(seed.deals).toHaveLength(30);
    expect(seed.messages.filter((m) => m.sourceId !== 'salesforce_crm')).toHaveLength(30);
    expect((await cli('emulator', 'seed', '--limit', '30', '--org', org, '--out', file)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a bad organization and a missing datasets folder', async () => {
    const bad = await cli('emulator', 'seed', '--org', 'acme');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--org takes an organization UUID/);
    const missing = await cli('emulator', 'seed', '--datasets', join(dir, 'nope'), '--out', join(dir, 'x.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--datasets .* does not exist/);
  });
});

describe('emulator.seed: demo in ferry.yaml', () => {
  it('seeds the embedded emulator, so ferry ask cites a Harper Valley call', async () => {
    const config = join(dir, 'ferry.yaml');
    writeFileSync(config, 'version: 1\nservice:\n  baseUrl: embedded\nemulator:\n  db: ":memory:"\n  seed: demo\n');
    const saved = { ...process.env };
    delete process.env.FERRY_BASE_URL;
    delete process.env.FERRY_API_KEY;
    try {
      const result = await cli('-c', config, 'ask', 'What did the caller need to replace?', '--json');
      expect(result.code, result.stderr).toBe(0);
      const run = JSON.parse(result.stdout) as { status: string; output: string };
      expect(run.status).toBe('completed');
      expect(run.output).toMatch(/Harper Valley National Bank – replace card .*\[conversation [0-9a-f-]{36}\]/);
    } finally {
      process.env = saved;
    }
  });
});

describe('ferry emulator --seed demo', () => {
  it('serves the generated data until SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'emulator', '--memory', '--port', '0', '--seed', 'demo', '--log-level', 'warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      for (let i = 0; i < 600 && !/seeded:/.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toMatch(/seeded: 2000 deals, 85 accounts, 36 conversations, \d+ messages, 38 documents/);
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
      const headers = { authorization: `Bearer ${/(sk_live_[\w-]+)/.exec(stdout)?.[1] ?? ''}` };
      const accounts = (await (await fetch(`${url}/v1/accounts?name=acme`, { headers })).json()) as { accounts: { accountId: string; latestDeal: unknown }[] };
      expect(accounts.accounts).toEqual([expect.objectContaining({ accountId: 'acme-corporation', latestDeal: expect.objectContaining({ dealId: expect.any(String) }) })]);
      const calls = (await (await fetch(`${url}/v1/conversations?sourceId=aircall_dialer`, { headers })).json()) as { conversations: unknown[] };
      expect(calls.conversations).toHaveLength(3);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('ferry emulator stopped');
  });
});

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../../bin/ferry.js');

describe('ferry emulator (CLI)', () => {
  it('prints the URL, dev key and a curl line, serves /v1 and /metrics, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'emulator', '--memory', '--port', '0', '--log-level', 'warn', '--rate-500', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      for (let i = 0; i < 200 && !/curl .*\/v1\/health/.test(stdout); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      const key = /(sk_live_[\w-]+)/.exec(stdout)?.[1];
      expect(url).toBeDefined();
      expect(key).toBeDefined();
      const res = await fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('ok');
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain('ferry_emulator_request_duration_seconds_count{endpoint="health",status="200"} 1');
      expect(metrics).toContain('ferry_emulator_process_cpu_user_seconds_total');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('ferry emulator stopped');
  });
});

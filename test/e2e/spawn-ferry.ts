/** Running the real CLI (`node bin/ferry.js …`) as a user does, in a project directory. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/ferry.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh temporary directory for one test project. */
export function tempProjectDir(prefix = 'ferry-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Spawn `ferry <args>` in `cwd` with stdin closed (not a terminal). The
 * service variables of the caller's environment are dropped so a project
 * falls back to the embedded emulator unless the test sets them.
 */
export function ferry(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.FERRY_BASE_URL;
  delete env.FERRY_API_KEY;
  delete env.FERRY_LOG_LEVEL;
  Object.assign(env, options.env);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Parse stdout as JSON, with the output in the message when it is not. */
export function jsonOf(result: CliResult): unknown {
  try {
    return JSON.parse(result.stdout) as unknown;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

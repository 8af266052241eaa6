/** Creating the folder a state or emulator file lives in (internal: not exported from ferry/sdk; here because every layer may import src/sdk). */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Create `dir` and its missing parents, one level at a time. Not
 * `mkdirSync(dir, { recursive: true })`: on a file system that answers
 * ENOENT for a folder it will never create (procfs, `/proc/ferry`), Node's
 * recursive mkdir retries forever in one synchronous call, at full CPU and
 * deaf to SIGTERM. Here the first refusal is thrown.
 */
export function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); ; ) {
    const info = statSync(at, { throwIfNoEntry: false });
    if (info) {
      if (!info.isDirectory()) throw Object.assign(new Error(`${at} is a file, not a folder`), { code: 'ENOTDIR' });
      break;
    }
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing) mkdirSync(folder);
}

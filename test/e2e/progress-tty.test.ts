/**
 * The progress bar as a terminal shows it (issue 46: `ETA NFs` in most
 * frames of a long run): ferry run under a pseudo-terminal (`script`), and
 * every frame's ETA is a duration or absent, never NaN, Infinity, INF or NULL.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProjectDir } from './spawn-ferry.js';

const BIN = resolve(import.meta.dirname, '../../bin/ferry.js');
const ESC = String.fromCharCode(27);
const FRAME_START = new RegExp(`${ESC}\\[1G|[\\r\\n]+`);
const ESCAPE = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, 'g');
const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** `ferry run` under `script -q -e -c`, so stderr is a terminal; all it wrote. */
function runOnTty(dir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, COLUMNS: '200' };
    delete env.FERRY_BASE_URL;
    delete env.FERRY_API_KEY;
    const child = spawn('script', ['-q', '-e', '-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run`, '/dev/null'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => done({ code, output }));
  });
}

describe.skipIf(!HAS_SCRIPT)('the progress bar on a terminal', () => {
  it('shows an ETA only as a duration, never NaN, Infinity, INF or NULL', async () => {
    const dir = tempProjectDir('ferry-tty-');
    writeFileSync(join(dir, 'rows.csv'), `id,name\n${Array.from({ length: 3000 }, (_, i) => `${i},n${i}`).join('\n')}\n`);
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
emulator: { db: ':memory:' }
state: { url: sqlite:state/ferry.db }
syncs:
  - name: rows
    source: { type: csv, path: rows.csv, primaryKey: id }
    target: { type: row, source: { name: rows }, objectType: { name: r }, map: { id: id, name: name, public: true, fields: { n: name } } }
`,
    );
    const { code, output } = await runOnTty(dir);
    expect(code, output).toBe(0);
    const frames = output
      // cli-progress starts each frame by moving the cursor to column 1.
      .split(FRAME_START)
      .map((frame) => frame.replace(ESCAPE, ''))
      .filter((frame) => frame.startsWith('rows ['));
    expect(frames.length, output).toBeGreaterThan(0);
    for (const frame of frames) {
      expect(frame).not.toMatch(/NaN|Infinity|INF|NULL|NFs/);
      const eta = /\| ETA ([^|]+?)(?: \||$)/.exec(frame)?.[1];
      if (eta !== undefined) expect(eta).toMatch(/^(\d+(\.\d)? s|\d+ ms|\d+m \d\ds|\d+h \d\dm)$/);
    }
    expect(frames.at(-1)).toContain('3000/3000 read');
  });
});

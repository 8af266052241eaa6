/**
 * The published package as a new user meets it: `npm pack`, install the
 * tarball into an empty folder outside this checkout, and run the README's
 * quick start (`init`, `check`, `preview`, `run`, `status`) with the installed
 * `ferry`, plus a connector in plain JavaScript that imports `ferry/sdk`.
 *
 * Two shortcuts keep this to seconds instead of minutes, neither of which
 * lets code from the checkout in: the install uses npm's cache (`npm ci`
 * filled it) and skips install scripts, and better-sqlite3's native addon —
 * compiling it takes minutes on two cores — is copied from the same version
 * already built in this checkout's node_modules. Optional dependencies (tsx)
 * are left out, proving nothing at start needs a TypeScript compiler.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { THREAD_FROM_BYTES } from '../../connectors/sources/_shared/parse-thread/parse-thread.js';
import { tempProjectDir, type CliResult } from './spawn-ferry.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface PackResult {
  filename: string;
  files: { path: string }[];
}

let packed: PackResult;
let app: string;

/** Run a command without throwing on a non-zero exit; service variables of the caller are dropped. */
async function sh(file: string, args: readonly string[], cwd: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['FERRY_BASE_URL', 'FERRY_API_KEY', 'FERRY_LOG_LEVEL', 'FERRY_LOG_FORMAT', 'NODE_PATH']) delete env[name];
  try {
    const { stdout, stderr } = await run(file, [...args], { cwd, env, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  const out = tempProjectDir('ferry-pack-');
  // dist/ is current: the test setup built it from these sources.
  const pack = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as PackResult[])[0]!;

  app = tempProjectDir('ferry-installed-');
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'quick-start', private: true }));
  const install = await sh(
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--omit=optional', '--no-audit', '--no-fund', join(out, packed.filename)],
    app,
  );
  expect(install.code, install.stderr).toBe(0);
  const addon = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
  const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
  expect(version(app)).toBe(version(ROOT));
  mkdirSync(join(app, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
  copyFileSync(join(ROOT, addon), join(app, addon));
}, 180_000);

describe('the npm package', () => {
  it('ships the compiled CLI, the SDK with its types, and nothing of the development checkout', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['bin/ferry.js', 'dist/src/cli/main.js', 'dist/src/sdk/index.js', 'dist/src/sdk/index.d.ts', 'dist/connectors/sources/csv/index.js', 'package.json', 'README.md']));
    const stray = paths.filter(
      (p) => (/^(test|bench|\.ci|src|connectors|scripts|state|pipelines)\//.test(p) && p !== 'scripts/build.js') || (p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.includes('/connector-templates/')),
    );
    expect(stray).toEqual([]);
    // What hints and the scaffolds point at, and what `ferry emulator --seed demo` loads without shared/datasets.
    expect(paths).toEqual(expect.arrayContaining(['docs/configuration.md', 'docs/errors.md', 'docs/connector-authors.md', 'dist/demo-seed.json.gz', 'scripts/build.js']));
  });

  it('installs into an empty folder and runs the quick start with nothing from this checkout', async () => {
    expect(realpathSync(join(app, 'node_modules/ferry')).startsWith(realpathSync(ROOT))).toBe(false);
    const ferry = join(app, 'node_modules/.bin/ferry');
    const project = join(app, 'project');
    mkdirSync(project);

    expect((await sh(ferry, ['--version'], project)).stdout.trim()).toBe(VERSION);
    const init = await sh(ferry, ['init'], project);
    expect(init.code, init.stderr).toBe(0);
    const check = await sh(ferry, ['check'], project);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/All checks passed/);
    const preview = await sh(ferry, ['preview', 'example', '-n', '1'], project);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/plan for example: 8 read, 8 create/);
    const first = await sh(ferry, ['run', '--json'], project);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ syncs: [{ sync: 'example', status: 'succeeded', counts: { created: 8 } }] });
    const status = await sh(ferry, ['status', '--json'], project);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ syncs: [{ sync: 'example', lastRun: { status: 'succeeded' }, liveRecords: 8 }] });
  });

  it('parses a large CSV file on its parse thread, and commits and reads state on the state store\'s threads, from the installed package', async () => {
    const project = join(app, 'large-csv');
    mkdirSync(project);
    // Wide rows: past the parse thread's size with few records, so the run stays short.
    const rows = Math.ceil(THREAD_FROM_BYTES / 4000) + 10;
    const note = 'x'.repeat(4000);
    const lines = ['id,note', ...Array.from({ length: rows }, (_, i) => `r${i},${note}`)];
    writeFileSync(join(project, 'wide.csv'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(project, 'ferry.yaml'),
      `version: 1
service: { baseUrl: embedded, maxRequestsPerSecond: 10000 }
emulator: { db: 'state/emulator.db' }
state: { url: 'sqlite:state/ferry.db' }
syncs:
  - name: wide
    source: { type: csv, path: wide.csv, primaryKey: id }
    target:
      type: row
      source: { name: wide }
      objectType: { name: wide }
      map: { id: id, name: id, public: true, fields: { size: '$length(note)' } }
`,
    );
    // The state store's threads from the first write and look (not after 10,000): the run commits on the
    // commit thread, the re-run looks at the ledger on the reader thread.
    const ferry = (...args: string[]) => sh('env', ['FERRY_STATE_THREADS=on', join(app, 'node_modules/.bin/ferry'), ...args], project);
    const result = await ferry('run', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ syncs: [{ status: 'succeeded', counts: { read: rows, created: rows } }] });
    const again = await ferry('run', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ syncs: [{ status: 'succeeded', counts: { read: rows, unchanged: rows, pushed: 0 } }] });
  });

  it('lets a connector in plain JavaScript import ferry/sdk from the installed package', async () => {
    const project = join(app, 'plain-js');
    mkdirSync(project);
    writeFileSync(
      join(project, 'count.js'),
      `import { z } from 'zod';
import { defineSource } from 'ferry/sdk';

export default defineSource({
  name: 'count',
  options: z.strictObject({ count: z.number().int().min(1) }),
  async discover() {
    return [{ name: 'count', primaryKey: ['id'], fields: [{ name: 'id', type: 'string' }] }];
  },
  async *read(ctx) {
    for (let n = 1; n <= ctx.options.count; n++) yield { data: { id: String(n) }, origin: { stream: 'count', key: String(n) } };
  },
});
`,
    );
    writeFileSync(
      join(project, 'ferry.yaml'),
      `version: 1
service: { baseUrl: embedded }
emulator: { db: ':memory:' }
state: { url: 'sqlite:state/ferry.db' }
syncs:
  - name: counted
    source: { type: ./count.js, count: 3 }
    target:
      type: row
      source: { name: counted }
      objectType: { name: counted }
      map: { id: id, name: '"n" & id', public: true, fields: { n: id } }
`,
    );
    const result = await sh(join(app, 'node_modules/.bin/ferry'), ['run', '--json'], project);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ syncs: [{ status: 'succeeded', counts: { created: 3 } }] });
  });

  it('serves the demo seed, and scaffolds a connector whose npm install and npm test work', async () => {
    const ferry = join(app, 'node_modules/.bin/ferry');
    const emulator = await new Promise<string>((done) => {
      const child = spawn(ferry, ['emulator', '--seed', 'demo', '--port', '0', '--memory'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (/seeded: .*\n/.test(out)) child.kill('SIGTERM');
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('close', () => (clearTimeout(timer), done(out)));
    });
    expect(emulator).toMatch(/seeded: 2000 deals, \d+ accounts, \d+ conversations/);
    expect(emulator).not.toContain('Bearer ***');

    const created = await sh(ferry, ['connector', 'new', 'ferry-connector-tickets'], app);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('node_modules/ferry/docs/connector-authors.md');
    const connector = join(app, 'ferry-connector-tickets');
    // npm runs ferry's prepare on the linked package: it must do nothing there, and allowScripts (npm 11) covers it.
    const install = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], connector);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/not yet covered by allowScripts/);
    const test = await sh('npm', ['test'], connector);
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/Tests\s+.*\d+ passed/);
  }, 240_000);
});

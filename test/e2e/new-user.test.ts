/**
 * What a new user meets first, through the CLI: the scaffold `ferry init`
 * writes, `ferry emulator`'s start, and the errors of a first project's
 * usual mistakes (issue 46): each says what is wrong and what to do, with
 * the exit code of docs/errors.md, and none hangs or passes silently.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const BIN = resolve(import.meta.dirname, '../../bin/ferry.js');

function project(syncs: string, files: Record<string, string> = {}, head = ''): string {
  const dir = tempProjectDir('ferry-new-user-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  writeFileSync(join(dir, 'ferry.yaml'), `version: 1\nemulator: { db: ':memory:' }\n${head}syncs:\n${syncs}`);
  return dir;
}

const rowTarget = (name: string) => `
    target: { type: row, source: { name: ${name} }, objectType: { name: ${name} }, map: { id: id, name: id, public: true, fields: { n: name } } }
`;

/** `ferry emulator …` until its output matches `until`; then SIGTERM, and what it printed and its exit code. */
function emulator(args: string[], until: RegExp): Promise<{ code: number | null; stdout: string; stderr: string; matched: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'emulator', ...args], { cwd: tempProjectDir(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let matched = false;
    const look = () => {
      if (!matched && until.test(stdout)) {
        matched = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), look()));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, matched });
    });
  });
}

describe('ferry init', () => {
  it('points the YAML at the JSON Schema it writes beside it, and sets no rate ceiling for the embedded emulator', async () => {
    const dir = tempProjectDir();
    expect((await ferry(['init'], { cwd: dir })).code).toBe(0);
    const yaml = readFileSync(join(dir, 'ferry.yaml'), 'utf8');
    expect(yaml.split('\n')[0]).toBe('# yaml-language-server: $schema=./ferry.schema.json');
    expect(readFileSync(join(dir, 'pipelines/example.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../ferry.schema.json');
    const schema = JSON.parse(readFileSync(join(dir, 'ferry.schema.json'), 'utf8')) as { title: string };
    expect(schema.title).toMatch(/ferry project file/);
    // No ceiling set: only a comment says what to set for a real service.
    expect(yaml).not.toMatch(/^\s*maxRequestsPerSecond:/m);
    expect(yaml).toMatch(/#\s*maxRequestsPerSecond: \d+/);
  });
});

describe('ferry emulator', () => {
  it('prints a curl line that pastes: the key of the emulator just started, not ***', async () => {
    const result = await emulator(['--port', '0', '--memory'], /curl .*\n/);
    expect(result.matched, result.stderr).toBe(true);
    const key = /development key[^\n]*\n\s+(\S+)/.exec(result.stdout)?.[1];
    expect(key).toMatch(/^sk_/);
    expect(result.stdout).toContain(`Authorization: Bearer ${key}`);
  });

  it('says that the port is in use, and exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const port = (holder.address() as AddressInfo).port;
    try {
      const result = await ferry(['emulator', '--port', String(port), '--memory'], { cwd: tempProjectDir() });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(result.stderr).toContain('--port');
    } finally {
      holder.close();
    }
  });
});

describe('a first project’s mistakes', () => {
  it('state on a file system that cannot hold it fails at once, naming it', async () => {
    const dir = project(`  - name: deals\n    source: { type: csv, path: d.csv, primaryKey: id }${rowTarget('d')}`, { 'd.csv': 'id,name\n1,a\n' }, "state: { url: 'sqlite:/proc/ferry/ferry.db' }\n");
    const result = await ferry(['run'], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('FERRY_STATE_ERROR');
    expect(result.stderr).toContain("mkdir '/proc/ferry'");
  });

  it('a SQLite state path that names a CSV file says state.url is not a data file', async () => {
    const dir = project(`  - name: deals\n    source: { type: csv, path: d.csv, primaryKey: id }${rowTarget('d')}`, { 'd.csv': 'id,name\n1,a\n' }, 'state: { url: sqlite:d.csv }\n');
    const result = await ferry(['run'], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('d.csv is not a SQLite database (a csv file)');
    expect(result.stderr).toContain('sqlite:state/ferry.db');
    expect(result.stderr).not.toMatch(/host|port/);
  });

  it('an empty or header-only CSV is reported as empty input, exit 1', async () => {
    const target = `
    target: { type: row, source: { name: e }, objectType: { name: e }, map: { id: id, name: id, public: true } }
`;
    const dir = project(`  - name: header-only\n    source: { type: csv, path: h.csv, primaryKey: id }${target}  - name: empty\n    source: { type: csv, path: e.csv, primaryKey: id }${target}`, {
      'h.csv': 'id,name\n',
      'e.csv': '',
    });
    for (const sync of ['header-only', 'empty']) {
      const result = await ferry(['run', sync, '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(1);
      expect((jsonOf(result) as { syncs: { error: string }[] }).syncs[0]?.error).toMatch(/the source yielded no records \(empty input\)/);
    }
  });

  it('a primaryKey the file has no column for stops the read, naming the columns', async () => {
    const dir = project(`  - name: deals\n    source: { type: csv, path: d.csv, primaryKey: ident }${rowTarget('d')}`, { 'd.csv': 'id,name\n1,a\n' });
    const result = await ferry(['run'], { cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('primaryKey "ident" is not a column of d.csv (columns: id, name)');
  });

  it('an include glob that matches no file is warned about by ferry run too', async () => {
    const dir = project(`  - name: deals\n    source: { type: csv, path: d.csv, primaryKey: id }${rowTarget('d')}`, { 'd.csv': 'id,name\n1,a\n' }, 'include: [pipeline/*.yaml]\n');
    const result = await ferry(['run'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/"level":40.*include\[0\].*"pipeline\/\*\.yaml\\?" matched no files/);
  });
});

describe('ferry completion and ferry config show', () => {
  it('prints completion scripts for bash, zsh and fish that list the commands', async () => {
    const dir = tempProjectDir();
    for (const shell of ['bash', 'zsh', 'fish']) {
      const result = await ferry(['completion', shell], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      for (const word of ['run', 'failures', 'config', 'completion', 'full-refresh']) expect(result.stdout).toContain(word);
    }
    const bash = await ferry(['completion', 'bash'], { cwd: dir });
    writeFileSync(join(dir, 'ferry.bash'), bash.stdout);
    const syntax = await new Promise<number | null>((done) => spawn('bash', ['-n', join(dir, 'ferry.bash')]).once('close', done));
    expect(syntax).toBe(0);
    expect((await ferry(['completion', 'tcsh'], { cwd: dir })).code).toBe(1);
  });

  it('config show prints the resolved configuration: includes merged, ${VAR} resolved, secrets masked', async () => {
    const dir = project(
      `  - name: deals\n    source: { type: csv, path: "\${DEALS_FILE}", primaryKey: id }${rowTarget('d')}`,
      { 'd.csv': 'id,name\n1,a\n', 'more.yaml': `syncs:\n  - name: orders\n    source: { type: postgres, url: "postgres://ferry:\${DB_PASSWORD}@127.0.0.1:5432/crm", table: orders }${rowTarget('o')}` },
      'service: { apiKey: "${FERRY_API_KEY}" }\ninclude: [more.yaml]\n',
    );
    const env = { DEALS_FILE: 'd.csv', DB_PASSWORD: 'pw-very-secret', FERRY_API_KEY: 'sk_live_0123456789abcdef' };
    const result = await ferry(['config', 'show', '--json'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    const shown = jsonOf(result) as { service: { apiKey: string }; syncs: { name: string; source: { path?: string; url?: string } }[] };
    expect(shown.syncs.map((s) => s.name)).toEqual(['deals', 'orders']);
    expect(shown.syncs[0]?.source.path).toBe('d.csv');
    expect(shown.service.apiKey).toBe('***');
    expect(shown.syncs[1]?.source.url).toBe('postgres://ferry:***@127.0.0.1:5432/crm');
    expect(result.stdout).not.toMatch(/pw-very-secret|sk_live_0123/);
    const one = await ferry(['config', 'show', 'orders'], { cwd: dir, env });
    expect(one.stdout).toMatch(/^name: orders$/m);
    expect((await ferry(['config', 'show', 'nope'], { cwd: dir, env })).code).toBe(1);
  });

  it('an unset ${VAR} in one sync does not keep failures list and status from another', async () => {
    const dir = project(
      `  - name: deals\n    source: { type: csv, path: d.csv, primaryKey: id }${rowTarget('d')}  - name: orders\n    source: { type: postgres, url: "\${ORDERS_DB_URL}", table: orders }${rowTarget('o')}`,
      { 'd.csv': 'id,name\n1,a\n' },
    );
    const list = await ferry(['failures', 'list', 'deals'], { cwd: dir });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('No failures for sync deals.');
    expect(list.stderr).toContain('ORDERS_DB_URL is not set');
    expect((await ferry(['status'], { cwd: dir })).code).toBe(0);
    // A run still refuses: it would read the sync.
    expect((await ferry(['run', 'orders'], { cwd: dir })).code).toBe(1);
  });
});

/**
 * Secrets of the configuration (the API key, database passwords, every
 * `${VAR}` value) never reach the terminal, the logs or the state file: not
 * when a record echoes them, not in configuration errors, not in a run's error.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ferry, tempProjectDir } from './spawn-ferry.js';

const KEY = 'sk-e2e-4f1b9c2d7a';
const PASSWORD = 'hunter2-e2e-pass';
const ENV = { FERRY_API_KEY: KEY, PGPASS: PASSWORD };
const PG_URL = process.env.FERRY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function project(options: { service?: string; source?: string } = {}): string {
  const dir = tempProjectDir('ferry-secrets-');
  mkdirSync(join(dir, 'data'));
  // A record that echoes the key (a pasted config, a support ticket…): the
  // mapping rejects it, so it also lands in the dead-letter.
  writeFileSync(join(dir, 'data/deals.csv'), `id,name,note\n1,alice,pasted ${KEY} by mistake\n2,bob,fine\n`);
  const db = new Database(join(dir, 'data/crm.db'));
  db.exec("create table deals(id integer primary key, name text); insert into deals values (1, 'a')");
  db.close();
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: ${options.service ?? '{ baseUrl: embedded, apiKey: "${FERRY_API_KEY}" }'}
state: { url: sqlite:state/ferry.db }
emulator: { db: state/emulator.db }
syncs:
  - name: deals
    source: ${options.source ?? '{ type: csv, path: data/deals.csv, primaryKey: id }'}
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal, fields: { note: double } }
      map: { id: id, name: name, public: true, fields: { note: "$number(note)" } }
`,
  );
  return dir;
}

function stateText(dir: string): string {
  const db = new Database(join(dir, 'state/ferry.db'), { readonly: true });
  try {
    const failures = db.prepare('select reason, body, source_record from failures').all();
    const runs = db.prepare('select error from runs').all();
    return JSON.stringify({ failures, runs });
  } finally {
    db.close();
  }
}

describe('secrets are never printed or stored', () => {
  it('preview masks a secret a record echoes, in text and JSON', async () => {
    const dir = project();
    const text = await ferry(['preview', 'deals'], { cwd: dir, env: ENV });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('pasted *** by mistake');
    const json = await ferry(['preview', 'deals', '--json'], { cwd: dir, env: ENV });
    expect(json.stdout).toContain('pasted *** by mistake');
    expect(text.stdout + text.stderr + json.stdout + json.stderr).not.toContain(KEY);
  });

  it('the dead-letter, its listing and debug logs mask it, and say the stored copy was masked', async () => {
    const dir = project();
    const run = await ferry(['run', '--json'], { cwd: dir, env: { ...ENV, FERRY_LOG_LEVEL: 'debug' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('record invalid');
    const list = await ferry(['failures', 'list', 'deals'], { cwd: dir, env: ENV });
    expect(list.stdout).toContain('masked in the stored copy');
    const stored = stateText(dir);
    expect(stored).toContain('pasted *** by mistake');
    expect(run.stdout + run.stderr + list.stdout + stored).not.toContain(KEY);
  });

  it.each([
    ['concurrency', '{ baseUrl: embedded, apiKey: "${FERRY_API_KEY}", concurrency: "${FERRY_API_KEY}" }'],
    ['baseUrl', '{ baseUrl: "${FERRY_API_KEY}", apiKey: "${FERRY_API_KEY}" }'],
  ])('a configuration error about %s does not echo the interpolated key', async (_key, service) => {
    const dir = project({ service });
    const result = await ferry(['run'], { cwd: dir, env: ENV });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('***');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it.each([
    ['sqlite', '{ type: sqlite, path: data/crm.db, table: "${PGPASS}", primaryKey: id }'],
    // The local server trusts 127.0.0.1, so the password in the URL is ignored by it but not by ferry.
    ['postgres', `{ type: postgres, url: "${PG_URL.replace('postgres@', 'postgres:${PGPASS}@')}", table: "\${PGPASS}", primaryKey: id }`],
  ])('%s: a run error naming an interpolated password is masked on screen and in runs.error', async (_db, source) => {
    const dir = project({ source });
    const run = await ferry(['run'], { cwd: dir, env: ENV });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/\*\*\* does not exist/);
    const status = await ferry(['status'], { cwd: dir, env: ENV });
    const check = await ferry(['check'], { cwd: dir, env: ENV });
    expect(check.stdout + check.stderr).toContain('***');
    expect(stateText(dir)).toMatch(/\*\*\* does not exist/);
    expect(run.stdout + run.stderr + status.stdout + status.stderr + check.stdout + check.stderr + stateText(dir)).not.toContain(PASSWORD);
  });
});

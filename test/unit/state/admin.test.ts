import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFerryError } from '../../../src/sdk/errors.js';
import { openStateStore, parseStateUrl } from '../../../src/state/index.js';
import { openDatabase } from '../../../src/state/sqlite/database.js';
import { useTempDir } from './helpers.js';

const tempDir = useTempDir();

async function openError(url: string): Promise<unknown> {
  try {
    await (await openStateStore(url)).close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('sqlite admin', () => {
  it('sets up a file-backed store: WAL, foreign keys, busy timeout, schema version', async () => {
    const path = join(tempDir(), 'state', 'ferry.db');
    await (await openStateStore(`sqlite:${path}`)).close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('5');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['cursors', 'failures', 'ledger', 'locks', 'meta', 'runs', 'export_fingerprints']));
    // Fingerprint lookups and the live count use an index, never a table scan.
    const plan = (sql: string): string =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan("SELECT fingerprint FROM ledger WHERE sync = 'x' AND remote_id IN ('a', 'b')")).toMatch(/USING PRIMARY KEY|USING .*INDEX/);
    expect(plan("SELECT count(*) FROM ledger WHERE sync = 'x' AND status = 'pushed'")).toMatch(/USING PRIMARY KEY \(sync=\?\)/);
    // The mirror scan pages through the primary key in its own order: no sort.
    expect(plan("SELECT remote_id FROM ledger WHERE sync = 'x' AND status = 'pushed' AND remote_id > 'a' ORDER BY remote_id LIMIT 10")).toBe('SEARCH ledger USING PRIMARY KEY (sync=? AND remote_id>?)');
    db.close();
    // Reopening an up-to-date file does not migrate again.
    await (await openStateStore(`sqlite:${path}`)).close();
  });

  it("bounds SQLite's page cache at 4 MiB, below better-sqlite3's 16 MB that a long sync's ledger fills", () => {
    const db = openDatabase(join(tempDir(), 'ferry.db'), { busyTimeoutMs: 0 });
    expect(db.pragma('cache_size', { simple: true })).toBe(-4096);
    db.close();
  });

  it('refuses a corrupt file with the path and a hint', async () => {
    const path = join(tempDir(), 'ferry.db');
    writeFileSync(path, 'this is not a database, it is a shopping list. '.repeat(200));
    const error = await openError(`sqlite:${path}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR')).toBe(true);
    if (!isFerryError(error)) return;
    expect(error.message).toContain(path);
    expect(error.where).toBe(path);
    expect(error.hint).toMatch(/move it aside/);
  });

  it('refuses a file written by a newer ferry', async () => {
    const path = join(tempDir(), 'ferry.db');
    await (await openStateStore(`sqlite:${path}`)).close();
    const db = new Database(path);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    const error = await openError(`sqlite:${path}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR') && error.message).toMatch(/newer/);
  });

  it('refuses a location whose directory cannot be created', async () => {
    const blocker = join(tempDir(), 'not-a-dir');
    writeFileSync(blocker, 'a file where a directory should be');
    const path = join(blocker, 'state', 'ferry.db');
    const error = await openError(`sqlite:${path}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR')).toBe(true);
    expect(isFerryError(error) && error.where).toBe(path);
  });

  it('refuses a directory in place of the state file', async () => {
    const dir = tempDir();
    const error = await openError(`sqlite:${dir}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR') && error.message).toContain(dir);
  });

  it('parses state urls', () => {
    expect(parseStateUrl('sqlite:/var/lib/ferry.db')).toEqual({ kind: 'sqlite', path: '/var/lib/ferry.db' });
    expect(parseStateUrl('sqlite:///var/lib/ferry.db')).toEqual({ kind: 'sqlite', path: '/var/lib/ferry.db' });
    expect(parseStateUrl('sqlite::memory:')).toEqual({ kind: 'sqlite-memory' });
    expect(parseStateUrl('postgres://u:p@h/db')).toEqual({ kind: 'postgres', url: 'postgres://u:p@h/db' });
    for (const bad of ['sqlite:state/ferry.db', 'sqlite:', 'mysql://x', 'ferry.db']) {
      expect(() => parseStateUrl(bad)).toThrow(expect.objectContaining({ code: 'FERRY_STATE_ERROR' }));
    }
  });

  it('names an unreachable Postgres state database without leaking the password', async () => {
    const error = await openError('postgres://ferry:s3cret@127.0.0.1:1/state');
    expect(isFerryError(error, 'FERRY_STATE_ERROR')).toBe(true);
    expect(String((error as Error).message)).toContain('postgres://ferry:***@127.0.0.1:1/state');
    expect(String((error as Error).message)).not.toContain('s3cret');
  });
});

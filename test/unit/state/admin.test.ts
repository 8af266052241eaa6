import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFerryError } from '../../../src/sdk/errors.js';
import { openStateStore, parseStateUrl } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { useTempDir } from './helpers.js';

const tempDir = useTempDir();

function seed(store: StateStore, sync: string): void {
  store.recordAcknowledged({ sync, remoteId: 'a', fingerprint: 'f', recordId: 'r' });
  store.recordFailure({ sync, runId: null, remoteId: 'b', origin: null, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: null });
  store.checkpoint(sync, { value: 9 });
}

function openError(url: string): unknown {
  try {
    openStateStore(url).close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('admin', () => {
  it('lists every sync that has any state', () => {
    const store = openStateStore('sqlite::memory:');
    store.recordAcknowledged({ sync: 'ledger-only', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
    store.checkpoint('cursor-only', { value: 1 });
    store.startRun('run-only');
    store.recordFailure({ sync: 'failure-only', runId: null, remoteId: null, origin: null, kind: 'invalid', reason: 'x', status: null, errorBody: null, body: null, sourceRecord: null });
    expect(store.syncs()).toEqual(['cursor-only', 'failure-only', 'ledger-only', 'run-only']);
    store.close();
  });

  it('resets everything of one sync by default, and keeps run history', () => {
    const store = openStateStore('sqlite::memory:');
    seed(store, 'deals');
    seed(store, 'notes');
    store.startRun('deals');
    store.reset('deals');
    expect(store.cursor('deals')).toBeUndefined();
    expect(store.ledgerEntry('deals', 'a')).toBeUndefined();
    expect(store.ledgerEntry('deals', 'b')).toBeUndefined();
    expect(store.failureCount('deals')).toBe(0);
    expect(store.runs({ sync: 'deals' })).toHaveLength(1);
    expect(store.cursor('notes')).toEqual({ value: 9 });
    expect(store.countLive('notes')).toBe(1);
    expect(store.failureCount('notes')).toBe(1);
    store.close();
  });

  it.each([
    [{ cursor: true }, { cursor: false, ledger: true, failures: true }],
    [{ ledger: true }, { cursor: true, ledger: false, failures: true }],
    [{ failures: true }, { cursor: true, ledger: true, failures: false }],
    [{ cursor: true, failures: true }, { cursor: false, ledger: true, failures: false }],
  ])('resets only what is asked: %o', (what, kept) => {
    const store = openStateStore('sqlite::memory:');
    seed(store, 'deals');
    store.reset('deals', what);
    expect(store.cursor('deals') !== undefined).toBe(kept.cursor);
    expect(store.ledgerEntry('deals', 'a') !== undefined).toBe(kept.ledger);
    expect(store.failureCount('deals') === 1).toBe(kept.failures);
    store.close();
  });

  it('also resets writes that were still buffered', () => {
    const store = openStateStore('sqlite::memory:');
    store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
    store.reset('deals');
    store.flush();
    expect(store.ledgerEntry('deals', 'a')).toBeUndefined();
    store.close();
  });

  it('sets up a file-backed store: WAL, foreign keys, busy timeout, schema version', () => {
    const path = join(tempDir(), 'state', 'ferry.db');
    openStateStore(`sqlite:${path}`).close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('2');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['cursors', 'failures', 'ledger', 'locks', 'meta', 'runs']));
    // Fingerprint lookups and the live count use an index, never a table scan.
    const plan = (sql: string): string =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan("SELECT fingerprint FROM ledger WHERE sync = 'x' AND remote_id IN ('a', 'b')")).toMatch(/USING PRIMARY KEY|USING .*INDEX/);
    expect(plan("SELECT count(*) FROM ledger WHERE sync = 'x' AND status = 'pushed'")).toMatch(/USING .*INDEX ledger_live/);
    db.close();
    // Reopening an up-to-date file does not migrate again.
    openStateStore(`sqlite:${path}`).close();
  });

  it('refuses a corrupt file with the path and a hint', () => {
    const path = join(tempDir(), 'ferry.db');
    writeFileSync(path, 'this is not a database, it is a shopping list. '.repeat(200));
    const error = openError(`sqlite:${path}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR')).toBe(true);
    if (!isFerryError(error)) return;
    expect(error.message).toContain(path);
    expect(error.where).toBe(path);
    expect(error.hint).toMatch(/move it aside/);
  });

  it('refuses a file written by a newer ferry', () => {
    const path = join(tempDir(), 'ferry.db');
    openStateStore(`sqlite:${path}`).close();
    const db = new Database(path);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    const error = openError(`sqlite:${path}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR') && error.message).toMatch(/newer/);
  });

  it('refuses a location whose directory cannot be created', () => {
    const blocker = join(tempDir(), 'not-a-dir');
    writeFileSync(blocker, 'a file where a directory should be');
    const path = join(blocker, 'state', 'ferry.db');
    const error = openError(`sqlite:${path}`);
    expect(isFerryError(error, 'FERRY_STATE_ERROR')).toBe(true);
    expect(isFerryError(error) && error.where).toBe(path);
  });

  it('refuses a directory in place of the state file', () => {
    const dir = tempDir();
    const error = openError(`sqlite:${dir}`);
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

  it('says Postgres is not supported yet, without leaking the password', () => {
    const error = openError('postgres://ferry:s3cret@db.example.com/state');
    expect(isFerryError(error, 'FERRY_STATE_ERROR')).toBe(true);
    expect(String((error as Error).message)).toMatch(/not supported yet/);
    expect(String((error as Error).message)).not.toContain('s3cret');
  });
});

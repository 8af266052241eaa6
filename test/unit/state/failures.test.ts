import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import type { FailureWrite } from '../../../src/state/index.js';
import { MIGRATIONS } from '../../../src/state/sqlite/migrations.js';
import { useTempDir } from './helpers.js';

const tempDir = useTempDir();

function failure(overrides: Partial<FailureWrite>): FailureWrite {
  return { sync: 's', runId: null, remoteId: null, origin: null, kind: 'invalid', reason: 'bad', status: null, errorBody: null, body: null, sourceRecord: null, ...overrides };
}

describe('dead-letter entries', () => {
  it('keeps one entry per record: by remote id, by origin and source record, or the entry a retry replaces', () => {
    const store = openStateStore('sqlite::memory:');
    store.recordFailure(failure({ remoteId: 'r1', origin: 'a.csv:2', sourceRecord: { id: 'r1' } }));
    store.recordFailure(failure({ remoteId: 'r1', origin: 'a.csv:3', sourceRecord: { id: 'r1', moved: true } }));
    store.recordFailure(failure({ origin: 'a.csv:4', sourceRecord: { x: 1 } }));
    store.recordFailure(failure({ origin: 'a.csv:4', sourceRecord: { x: 1 }, reason: 'still bad' }));
    // Same page URL, another record: a separate entry.
    store.recordFailure(failure({ origin: 'a.csv:4', sourceRecord: { x: 2 } }));
    store.flush();
    const entries = store.failures({ sync: 's' });
    expect(entries.map((f) => [f.remoteId, f.origin, f.attempts, f.reason])).toEqual([
      [null, 'a.csv:4', 1, 'bad'],
      [null, 'a.csv:4', 2, 'still bad'],
      ['r1', 'a.csv:3', 2, 'bad'],
    ]);
    const retried = entries[1]!;
    store.recordFailure(failure({ origin: 'dead-letter', sourceRecord: { x: 1 }, remoteId: 'now-mapped', replaces: retried.id }));
    store.flush();
    expect(store.failures({ sync: 's' }).map((f) => [f.remoteId, f.attempts])).toEqual([
      ['now-mapped', 3],
      [null, 1],
      ['r1', 2],
    ]);
    store.close();
  });

  it('collapses repeats an older state file holds when it is migrated', () => {
    const file = join(tempDir(), 'old.db');
    const db = new Database(file);
    db.exec(MIGRATIONS[0]!);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
    const insert = db.prepare("INSERT INTO failures (sync, origin, kind, reason, source_record, attempts, created_at) VALUES ('s', ?, 'invalid', ?, ?, 1, 'now')");
    insert.run('a.csv:4', 'first', '{"x":1}');
    insert.run('a.csv:4', 'second', '{"x":1}');
    insert.run('a.csv:9', 'other', '{"x":9}');
    db.close();
    const store = openStateStore(`sqlite:${file}`);
    expect(store.failures({ sync: 's' }).map((f) => [f.origin, f.reason, f.attempts])).toEqual([
      ['a.csv:9', 'other', 1],
      ['a.csv:4', 'second', 2],
    ]);
    store.close();
  });
});

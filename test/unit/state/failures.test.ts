import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../../src/state/index.js';
import { MIGRATIONS } from '../../../src/state/sqlite/migrations.js';
import { useTempDir } from './helpers.js';

const tempDir = useTempDir();

describe('SQLite dead-letter migration', () => {
  it('collapses the repeats an older state file holds into one entry counting them', async () => {
    const file = join(tempDir(), 'old.db');
    const db = new Database(file);
    db.exec(MIGRATIONS[0]!);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
    const insert = db.prepare("INSERT INTO failures (sync, origin, kind, reason, source_record, attempts, created_at) VALUES ('s', ?, 'invalid', ?, ?, 1, 'now')");
    insert.run('a.csv:4', 'first', '{"x":1}');
    insert.run('a.csv:4', 'second', '{"x":1}');
    insert.run('a.csv:9', 'other', '{"x":9}');
    db.close();
    const store = await openStateStore(`sqlite:${file}`);
    expect((await store.failures({ sync: 's' })).map((f) => [f.origin, f.reason, f.attempts])).toEqual([
      ['a.csv:9', 'other', 1],
      ['a.csv:4', 'second', 2],
    ]);
    await store.close();
  });
});

/**
 * Errors that used to be vague (issue 46), through the CLI: a mapping from a
 * source column the record lacks names the field and the column in the
 * dead-letter, and check names it before a run (it reads the source's first
 * records, as preview does); so is a primaryKey the records lack, for JSON
 * Lines as for CSV; a baseUrl ending in /v1 is refused by check with what to
 * write.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ferry, tempProjectDir } from './spawn-ferry.js';

function project(head: string, map: string): string {
  const dir = tempProjectDir('ferry-vague-');
  writeFileSync(join(dir, 'a.csv'), 'id,Title\n1,hello\n');
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
${head}
syncs:
  - name: rows
    source: { type: csv, path: a.csv, primaryKey: id }
    target: { type: row, source: { name: d }, objectType: { name: t }, map: ${map} }
`,
  );
  return dir;
}

describe('vague errors made clear', () => {
  it('a missing source column: the dead-letter names the field, the column and the columns the record has', async () => {
    const dir = project("emulator: { db: ':memory:' }", '{ id: id, name: title, public: true, fields: { t: Title } }');
    expect((await ferry(['run'], { cwd: dir })).code).toBe(2);
    const list = await ferry(['failures', 'list'], { cwd: dir });
    expect(list.stdout).toContain('field `name` is missing (expected string): its source column `title` is not in the record (it has: id, Title)');
    expect(list.stdout).not.toContain('received undefined');
  });

  it('a baseUrl ending in /v1: check refuses it (exit 1) and says to leave /v1 out', async () => {
    const dir = project('service: { baseUrl: "http://127.0.0.1:9/v1", apiKey: k }', '{ id: id, name: Title, public: true }');
    const check = await ferry(['check'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout + check.stderr).toMatch(/service\.baseUrl\s+must not end in \/v1: ferry adds \/v1 to every path/);
  });

  it('check reads the first records: a mapped column the CSV lacks fails check (exit 1), naming the entry, the column and the columns there are', async () => {
    const dir = project("emulator: { db: ':memory:' }", '{ id: id, name: title, public: true, fields: { t: Title } }');
    const check = await ferry(['check'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout + check.stderr).toContain("map entry `name` reads source column `title`, which the source does not have (the source's columns are: id, Title)");
    // The entries that do name a column are not reported.
    expect(check.stdout + check.stderr).not.toContain('`fields.t`');
    const fixed = project("emulator: { db: ':memory:' }", '{ id: id, name: Title, public: true, fields: { t: Title } }');
    expect((await ferry(['check'], { cwd: fixed })).code).toBe(0);
  });

  it('check: a primaryKey no JSON Lines record has fails (exit 1); a column only some records have is a warning', async () => {
    const dir = tempProjectDir('ferry-vague-');
    writeFileSync(join(dir, 'a.jsonl'), '{"id":"1","title":"a"}\n{"id":"2","title":"b","note":"x"}\n');
    const yaml = (key: string, map: string): string => `version: 1
emulator: { db: ':memory:' }
syncs:
  - name: docs
    source: { type: jsonl, path: a.jsonl, primaryKey: ${key} }
    target: { type: row, source: { name: d }, objectType: { name: t }, map: ${map} }
`;
    writeFileSync(join(dir, 'ferry.yaml'), yaml('ident', '{ id: id, name: title, public: true, fields: { n: note } }'));
    const wrongKey = await ferry(['check'], { cwd: dir });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout + wrongKey.stderr).toContain('primaryKey "ident" is in none of the first 2 records');
    writeFileSync(join(dir, 'ferry.yaml'), yaml('id', '{ id: id, name: title, public: true, fields: { n: note, s: subject } }'));
    const sparse = await ferry(['check'], { cwd: dir });
    expect(sparse.code).toBe(0);
    expect(sparse.stdout + sparse.stderr).toContain('map entry `fields.s` reads source column `subject`, which none of the first 2 records has');
    expect(sparse.stdout + sparse.stderr).not.toContain('`fields.n`');
  });

  it('run: a primaryKey the first JSON Lines record lacks stops the run (exit 3) naming the record and its fields', async () => {
    const dir = tempProjectDir('ferry-vague-');
    writeFileSync(join(dir, 'a.jsonl'), '{"id":"1","title":"a"}\n');
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
emulator: { db: ':memory:' }
syncs:
  - name: docs
    source: { type: jsonl, path: a.jsonl, primaryKey: ident }
    target: { type: row, source: { name: d }, objectType: { name: t }, map: { id: id, name: title, public: true, fields: { n: title } } }
`,
    );
    const run = await ferry(['run'], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).toContain('primaryKey "ident" is not a field of the first record (a.jsonl:1; it has: id, title)');
  });
});


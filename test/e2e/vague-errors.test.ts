/**
 * Errors that used to be vague (issue 46), through the CLI: a mapping from a
 * source column the record lacks names the field and the column in the
 * dead-letter; a baseUrl ending in /v1 is refused by check with what to write.
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
});

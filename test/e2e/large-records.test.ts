/**
 * A very large value, through the CLI (issue 46): a file source refuses a
 * record above its maxRecordBytes with FERRY_SOURCE_RECORD_TOO_LARGE at
 * file:line before holding it, and a large record the service or the
 * mapping refuses leaves a bounded excerpt in the dead-letter, not the
 * whole record twice over.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const BIG = 'x'.repeat(300_000);

function project(source: string, map = 'public: true'): string {
  const dir = tempProjectDir('ferry-large-');
  writeFileSync(join(dir, 'notes.csv'), `id,title,body\n1,one,small\n2,two,"${BIG}"\n3,three,small\n`);
  writeFileSync(join(dir, 'notes.jsonl'), [{ id: '1', title: 'one', body: 'small' }, { id: '2', title: 'two', body: BIG }, { id: '3', title: 'three', body: 'small' }].map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
emulator: { db: ':memory:' }
state: { url: sqlite:state/ferry.db }
syncs:
  - name: notes
    source: ${source}
    target: { type: row, source: { name: notes }, objectType: { name: note }, map: { id: id, name: title, ${map}, fields: { body: body } } }
`,
  );
  return dir;
}

describe('a record above maxRecordBytes', () => {
  for (const [kind, source, where] of [
    ['a CSV row', '{ type: csv, path: notes.csv, primaryKey: id, maxRecordBytes: 100000 }', 'notes.csv:3'],
    ['a JSON line', '{ type: jsonl, path: notes.jsonl, primaryKey: id, maxRecordBytes: 100000 }', 'notes.jsonl:2'],
  ] as const) {
    it(`stops the read at file:line with FERRY_SOURCE_RECORD_TOO_LARGE and a hint: ${kind}`, async () => {
      const result = await ferry(['run'], { cwd: project(source) });
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain('FERRY_SOURCE_RECORD_TOO_LARGE');
      expect(result.stderr).toContain(`the record at ${where} is larger than maxRecordBytes (100000 characters, 98 KiB)`);
      expect(result.stderr).toMatch(/hint.*maxRecordBytes/);
    });
  }
});

describe('a large record in the dead-letter', () => {
  it('keeps the origin, the reason and a 64 KiB excerpt that says it is one; failures retry leaves it and says why', async () => {
    // No `public: true`: the emulator's rules make every record invalid (private without owner).
    const dir = project('{ type: csv, path: notes.csv, primaryKey: id }', 'ownerEmails: "[]"');
    const run = await ferry(['run'], { cwd: dir });
    expect(run.code, run.stderr).toBe(2);
    expect(statSync(join(dir, 'state/ferry.db')).size).toBeLessThan(1024 * 1024);

    type Entry = { origin: string; reason: string; sourceRecord: Record<string, unknown>; body: Record<string, unknown> };
    const list = (jsonOf(await ferry(['failures', 'list', '--json'], { cwd: dir })) as { failures: Entry[] }).failures;
    const big = list.find((entry) => entry.origin === 'notes.csv:3')!;
    expect(big.reason).toMatch(/the record is about 29\d KiB: its dead-letter entry keeps a 64 KiB excerpt/);
    expect(big.sourceRecord.$ferryExcerpt).toMatchObject({ keptBytes: 65536 });
    expect(big.sourceRecord.id).toBe('2');
    expect(String(big.sourceRecord.body)).toMatch(/… \[cut: 300000 characters in all\]$/);
    expect(JSON.stringify(big).length).toBeLessThan(3 * 70_000);
    const small = list.find((entry) => entry.origin === 'notes.csv:2')!;
    expect(small.sourceRecord).toEqual({ id: '1', title: 'one', body: 'small' });

    const retry = await ferry(['failures', 'retry', 'notes'], { cwd: dir });
    expect(retry.stderr).toMatch(/1 dead-letter entry \(#\d+\) hold only an excerpt .* were not retried/);
    const after = (jsonOf(await ferry(['failures', 'list', '--json'], { cwd: dir })) as { failures: Entry[] }).failures;
    expect(after.map((entry) => entry.origin).sort()).toEqual(['notes.csv:2', 'notes.csv:3', 'notes.csv:4']);
  });
});

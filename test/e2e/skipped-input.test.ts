/**
 * Input a source skips is counted as `skipped`, input it repairs (a ragged
 * row, kept) as `repaired`, in the run summary, `ferry status` and `--json`:
 * each record once (issue 46: a ragged row was counted as pushed and as
 * skipped). Each is warned about once (discover's sampling used to repeat
 * read's warnings).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

function project(): string {
  const dir = tempProjectDir('ferry-skipped-');
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data/people.csv'), 'id,name\n1,ann\n2\n3,cy,extra\n4,dee\n');
  writeFileSync(join(dir, 'data/events.jsonl'), '{"id":1,"name":"a"}\n{"id":2,,}\nnot json\n{"id":4,"name":"d"}\n');
  const target = (type: string) => `
    target:
      type: row
      source: { name: crm }
      objectType: { name: ${type} }
      map: { id: $string(id), name: $string(id), public: true, fields: { ref: $string(id) } }`;
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: embedded }
state: { url: sqlite:state/ferry.db }
emulator: { db: state/emulator.db }
syncs:
  - name: people
    source: { type: csv, path: data/people.csv, primaryKey: id }${target('person')}
  - name: events
    source: { type: jsonl, path: data/events.jsonl, primaryKey: id, onInvalidLine: skip }${target('event')}
`,
  );
  return dir;
}

interface Counts {
  read: number;
  pushed: number;
  skipped: number;
  repaired?: number;
}

describe('skipped and repaired input', () => {
  it('is counted in the summary, status and --json, and each line is warned about once', async () => {
    const dir = project();
    const run = await ferry(['run', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const summary = jsonOf(run) as { syncs: { sync: string; counts: Counts }[] };
    // people: 4 rows read and pushed, 2 of them ragged (kept: repaired, not skipped); events: 2 lines skipped, 2 read.
    expect(summary.syncs.map((s) => [s.sync, s.counts.read, s.counts.pushed, s.counts.skipped, s.counts.repaired ?? 0])).toEqual([
      ['people', 4, 4, 0, 2],
      ['events', 2, 2, 2, 0],
    ]);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('"level":40'));
    for (const where of ['people.csv:3', 'people.csv:4', 'events.jsonl:2', 'events.jsonl:3']) {
      expect(warnings.filter((line) => line.includes(`${where}:`))).toHaveLength(1);
    }

    const status = await ferry(['status'], { cwd: dir });
    const [header, ...rows] = status.stdout.split('\n');
    const column = header!.split(/ {2,}/).indexOf('SKIPPED');
    expect(column).toBeGreaterThan(0);
    expect(rows.find((row) => row.startsWith('people'))!.trim().split(/ {2,}/)[column]).toBe('0');
    expect(rows.find((row) => row.startsWith('events'))!.trim().split(/ {2,}/)[column]).toBe('2');
    expect(status.stdout).toContain('people: last run: 2 input(s) repaired and kept');
    const statusJson = jsonOf(await ferry(['status', '--json'], { cwd: dir })) as { syncs: { sync: string; lastRun: { counts: Counts } }[] };
    expect(statusJson.syncs.find((s) => s.sync === 'events')?.lastRun.counts.skipped).toBe(2);
    expect(statusJson.syncs.find((s) => s.sync === 'people')?.lastRun.counts).toMatchObject({ skipped: 0, repaired: 2 });
  });

  it('shows a skipped column in the run table', async () => {
    const dir = project();
    const run = await ferry(['run', 'events'], { cwd: dir });
    const [header, row] = run.stdout.split('\n');
    const column = header!.split(/ {2,}/).indexOf('skipped');
    expect(column).toBeGreaterThan(0);
    expect(row!.split(/ {2,}/)[column]).toBe('2');
  });

  it('names the repaired rows under the run table, counted once in its columns', async () => {
    const run = await ferry(['run', 'people'], { cwd: project() });
    const [header, row] = run.stdout.split('\n');
    const cells = row!.split(/ {2,}/);
    const at = (name: string) => cells[header!.split(/ {2,}/).indexOf(name)];
    expect([at('read'), at('created'), at('skipped')]).toEqual(['4', '4', '0']);
    expect(run.stdout).toContain('people: 2 input(s) repaired and kept');
  });
});

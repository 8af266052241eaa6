/**
 * Two records of one read with the same id: the first wins, the later one is
 * not pushed, and the run says so in its summary, its log (once) and `status`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/api/client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { readRows } from '../integration/pipeline/harness.js';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const CSV = `id,stage
A1,Won
B2,Prospecting
C3,Lost
B2,Won
D4,Engaging
`;

function project(baseUrl: string): string {
  const dir = tempProjectDir();
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data/deals.csv'), CSV);
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: "\${FERRY_API_KEY}", concurrency: 2 }
syncs:
  - name: deals
    source: { type: csv, path: data/deals.csv }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map: { id: id, name: id, public: true, fields: { stage: stage } }
`,
  );
  return dir;
}

interface Summary {
  syncs: { counts: Record<string, number>; duplicates?: { remoteId: string; origin: string }[] }[];
}

describe('duplicate ids within one read (spawned)', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('pushes the first record of an id, counts and logs the later one once, and shows it in status', async () => {
    const dir = project(emulator.url);
    const env = { FERRY_API_KEY: emulator.devKey! };
    const first = await ferry(['run', '--json'], { cwd: dir, env });
    expect(first.code).toBe(0);
    const summary = jsonOf(first) as Summary;
    expect(summary.syncs[0]!.counts).toMatchObject({ read: 5, created: 4, updated: 0, duplicates: 1 });
    expect(summary.syncs[0]!.duplicates).toEqual([{ remoteId: 'B2', origin: 'data/deals.csv:5' }]);
    const warnings = first.stderr.split('\n').filter((l) => l.includes('duplicate id'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('data/deals.csv:5');

    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey! });
    const rows = await readRows(client, 'crm', 'deal');
    await client.close();
    expect(rows.get('B2')).toMatchObject({ fields: { stage: { value: 'Prospecting' } } });

    const listed = await ferry(['run', '--json'], { cwd: dir, env });
    // Unchanged data, re-run: nothing is pushed, the duplicate is reported again.
    expect((jsonOf(listed) as Summary).syncs[0]!.counts).toMatchObject({ read: 5, unchanged: 4, created: 0, updated: 0, duplicates: 1 });

    const preview = await ferry(['preview', 'deals'], { cwd: dir, env });
    expect(preview.stdout).toMatch(/1 record\(s\) not pushed: an earlier record of the same read had the same id, and the first wins; e\.g\. data\/deals\.csv:5 \(id B2\)/);

    const status = await ferry(['status'], { cwd: dir, env });
    expect(status.stdout).toMatch(/deals: last run: 1 record\(s\) not pushed: an earlier record of the same read had the same id, and the first wins/);
    const statusJson = jsonOf(await ferry(['status', '--json'], { cwd: dir, env }));
    expect(JSON.stringify(statusJson)).toContain('"duplicates":1');
  });
});

/**
 * `ferry failures list` after a record failed in a run, a full refresh and a
 * retry: one line per record with its attempts, and the remote id whenever
 * `map.id` produced one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const CSV = `id,value
A1,10
,20
C3,abc
`;

describe('ferry failures (spawned)', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('lists one entry per failing record with its attempts and remote id, across run, --full-refresh and retry', async () => {
    const dir = tempProjectDir();
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data/deals.csv'), CSV);
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: ${emulator.url}, apiKey: "\${FERRY_API_KEY}" }
syncs:
  - name: deals
    source: { type: csv, path: data/deals.csv }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal, fields: { value: int } }
      map: { id: id, name: id, public: true, fields: { value: '$number(value)' } }
`,
    );
    const env = { FERRY_API_KEY: emulator.devKey! };
    expect((await ferry(['run'], { cwd: dir, env })).code).toBe(2);
    expect((await ferry(['run', '--full-refresh'], { cwd: dir, env })).code).toBe(2);
    const retry = await ferry(['failures', 'retry', '--json'], { cwd: dir, env });
    expect(jsonOf(retry)).toMatchObject({ syncs: [{ counts: { read: 2, failed: 2 } }] });

    const list = await ferry(['failures', 'list'], { cwd: dir, env });
    const lines = list.stdout.split('\n').filter((l) => l.includes('deals'));
    expect(lines).toHaveLength(2);
    const byOrigin = new Map(lines.map((l) => [/data\/deals\.csv:\d/.exec(l)?.[0], l]));
    expect(byOrigin.get('data/deals.csv:3')).toMatch(/invalid ×3\s+-\s+-\s+data\/deals\.csv:3/);
    expect(byOrigin.get('data/deals.csv:4')).toMatch(/invalid ×3\s+-\s+C3\s+data\/deals\.csv:4/);
  });
});

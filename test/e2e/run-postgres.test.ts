/**
 * One-shot `ferry run` with its state on PostgreSQL: a first run pushes, a
 * second run (another process) finds everything unchanged in the shared
 * ledger, and `ferry state show` masks the password of the state URL.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dropSchemas, freshSchema } from '../helpers/postgres.js';
import { ferry, tempProjectDir } from './spawn-ferry.js';

const PIPELINE = readFileSync(resolve(import.meta.dirname, '../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const LINES = PIPELINE.split('\r\n').filter((l) => l.length > 0);
const PG_URL_WITH_PASSWORD = 'postgres://postgres:not-a-real-secret@127.0.0.1:5432/test';

describe('ferry run with postgres state (spawned)', () => {
  let emulator: RunningEmulator;
  const schema = freshSchema('ferry_e2e');
  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
  });
  afterAll(async () => {
    await emulator.close();
    await dropSchemas(schema);
  });

  it('pushes once, finds everything unchanged on the next run, and never prints the password', async () => {
    const dir = tempProjectDir();
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data/deals.csv'), LINES.slice(0, 41).join('\n') + '\n');
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: ${emulator.url}, apiKey: "\${FERRY_API_KEY}", maxRequestsPerSecond: 1000 }
state: { url: "${PG_URL_WITH_PASSWORD}", schema: ${schema} }
syncs:
  - name: deals
    source: { type: csv, path: data/deals.csv, primaryKey: opportunity_id }
    target: { type: row, source: { name: crm }, objectType: { name: deal }, map: { id: opportunity_id, name: opportunity_id, public: true, fields: { stage: deal_stage } } }
`,
    );
    const env = { FERRY_API_KEY: emulator.devKey! };
    const first = await ferry(['run', '--json'], { cwd: dir, env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ syncs: [{ sync: 'deals', counts: { created: 40 } }] });
    const second = await ferry(['run', '--json'], { cwd: dir, env });
    expect(JSON.parse(second.stdout)).toMatchObject({ syncs: [{ sync: 'deals', counts: { unchanged: 40, created: 0, updated: 0 } }] });
    const shown = await ferry(['state', 'show'], { cwd: dir, env });
    expect(shown.code).toBe(0);
    for (const out of [first, second, shown]) expect(out.stdout + out.stderr).not.toContain('not-a-real-secret');
  });
});

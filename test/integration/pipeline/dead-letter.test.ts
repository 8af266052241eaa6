/**
 * The dead-letter keeps one entry per record however often it fails (runs,
 * full refreshes, retries), counting attempts, and names the remote id
 * whenever the id mapped, even when another field's expression threw.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FailureEntry } from '../../../src/state/index.js';
import { Harness } from './harness.js';

const PIPELINE = readFileSync(resolve(import.meta.dirname, '../../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
const [HEADER, ...ALL] = PIPELINE.split('\r\n').filter((l) => l.length > 0);
// Rows with a close value, so only the rows the test breaks fail.
const LINES = ALL.filter((l) => /,\d+$/.test(l));

const SYNC = `  - name: deals
    source: { type: csv, path: data/deals.csv }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map:
        id: opportunity_id
        name: opportunity_id
        public: true
        fields:
          stage: deal_stage
          value: '$number(close_value)'
`;

describe('the dead-letter', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  async function failures(): Promise<FailureEntry[]> {
    const entries = await h.withState((store) => store.failures({ sync: 'deals' }));
    return entries.sort((a, b) => (a.origin ?? '').localeCompare(b.origin ?? ''));
  }

  it('holds one entry per record across run, run --full-refresh and failures retry, with its attempts', async () => {
    const lines = LINES.slice(0, 10).map((line, i) => {
      if (i === 2) return line.replace(/^[^,]+/, ''); // no id: cannot be pushed
      if (i === 5) return line.replace(/,[^,]*$/, ',not-a-number'); // $number() throws
      return line;
    });
    const badId = LINES[5]!.split(',')[0]!;
    h.write('data/deals.csv', [HEADER, ...lines].join('\n') + '\n');
    h.writeConfig(SYNC);

    const first = await h.run();
    expect(first.summaries[0]).toMatchObject({ exitCode: 2, counts: { created: 8, failed: 2 } });
    expect((await failures()).map((f) => [f.origin, f.remoteId, f.attempts])).toEqual([
      ['data/deals.csv:4', null, 1],
      // The id mapped although map.fields.value threw: the entry names it.
      ['data/deals.csv:7', badId, 1],
    ]);

    await h.run({ fullRefresh: true });
    expect((await failures()).map((f) => [f.origin, f.remoteId, f.attempts])).toEqual([
      ['data/deals.csv:4', null, 2],
      ['data/deals.csv:7', badId, 2],
    ]);

    const retry = await h.run({ retryFailures: true });
    expect(retry.summaries[0]).toMatchObject({ counts: { read: 2, failed: 2 } });
    expect((await failures()).map((f) => [f.origin, f.remoteId, f.attempts])).toEqual([
      ['data/deals.csv:4', null, 3],
      ['data/deals.csv:7', badId, 3],
    ]);
  });

  it('names the remote id of a record the object type refuses (newFields: freeze)', async () => {
    const id = LINES[1]!.split(',')[0]!;
    const frozen = SYNC.replace('      objectType: { name: deal }\n', '      objectType: { name: deal }\n      newFields: freeze\n');
    h.write('data/deals.csv', [HEADER, ...LINES.slice(0, 3)].join('\n') + '\n');
    h.writeConfig(frozen);
    expect((await h.run()).summaries[0]).toMatchObject({ counts: { created: 3 } });
    // A field the frozen object type does not declare, for one record only.
    h.writeConfig(frozen.replace("          value: '$number(close_value)'\n", `          value: '$number(close_value)'\n          agent: "opportunity_id = '${id}' ? sales_agent"\n`));
    const run = await h.run();
    expect(run.summaries[0]).toMatchObject({ counts: { unchanged: 2, failed: 1 } });
    expect((await failures()).map((f) => [f.remoteId, f.origin])).toEqual([[id, 'data/deals.csv:3']]);
  });
});

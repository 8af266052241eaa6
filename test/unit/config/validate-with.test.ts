import path from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { loadConfig, validateWith } from '../../../src/config/index.js';
import { project } from './fixtures.js';

/** Options of a CSV-like connector, as a connector author would write them. */
const csvOptions = z.strictObject({
  path: z.string(),
  delimiter: z.string().length(1).default(','),
  header: z.boolean().default(true),
  encoding: z.enum(['utf8', 'latin1']).default('utf8'),
});

const httpOptions = z.object({
  url: z.string(),
  auth: z.object({ token: z.string().min(40) }),
});

async function loadOne(sourceYaml: string) {
  const dir = await project({
    'pipelines/crm.yaml': `syncs:
  - name: crm-deals
    source:
${sourceYaml}
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map: { id: opportunity_id }
`,
    'ferry.yaml': 'include: [pipelines/crm.yaml]\n',
  });
  const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
  const sync = config.syncs[0];
  if (!sync) throw new Error('no sync');
  const { type: _type, ...options } = sync.source;
  return { sync, options, file: path.join(dir, 'pipelines/crm.yaml') };
}

describe('validateWith', () => {
  it('returns nothing for valid options', async () => {
    const { sync, options } = await loadOne('      type: csv\n      path: sales_pipeline.csv');
    expect(validateWith(csvOptions, options, sync, ['source'])).toEqual([]);
  });

  it("maps a connector's option problems to positions in the declaring file", async () => {
    const { sync, options, file } = await loadOne(
      '      type: csv\n      path: sales_pipeline.csv\n      delimiter: ";;"\n      header: yes please\n      encodng: latin1',
    );
    expect(validateWith(csvOptions, options, sync, ['source'])).toEqual([
      { file, line: 6, column: 18, path: 'syncs[0].source.delimiter', message: 'must have exactly 1 character', found: '";;"' },
      { file, line: 7, column: 15, path: 'syncs[0].source.header', message: 'wrong type', expected: 'a boolean', found: '"yes please"' },
      { file, line: 8, column: 7, path: 'syncs[0].source.encodng', message: 'unknown key "encodng" (did you mean "encoding"?)' },
    ]);
  });

  it('points a missing option at the source mapping and hides secret values', async () => {
    const { sync, options, file } = await loadOne(
      '      type: http\n      auth:\n        token: short-but-secret',
    );
    const issues = validateWith(httpOptions, options, sync, ['source']);
    expect(issues).toEqual([
      { file, line: 3, column: 5, path: 'syncs[0].source.url', message: 'missing required key "url"', expected: 'a string' },
      expect.objectContaining({ line: 6, column: 16, path: 'syncs[0].source.auth.token', found: '***' }),
    ]);
    expect(JSON.stringify(issues)).not.toContain('short-but-secret');
  });
});

describe('validateWith on a discriminated union', () => {
  it('names the allowed tags when none matches', async () => {
    const paging = z.object({
      pagination: z.discriminatedUnion('type', [z.object({ type: z.literal('page') }), z.object({ type: z.literal('cursor') })]),
    });
    const { sync, options } = await loadOne('      type: http\n      pagination: { type: pages }');
    const issues = validateWith(paging, options, sync, ['source']);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toBe('not an allowed value; expected one of "page" | "cursor"');
    expect(issues[0]!.found).toBe('"pages"');
    expect(issues[0]!.path).toBe('syncs[0].source.pagination.type');
  });
});

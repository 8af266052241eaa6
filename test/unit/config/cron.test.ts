import { describe, expect, it } from 'vitest';
import { projectFile } from '../../../src/config/schema.js';

const sync = (schedule: string) => ({
  name: 'deals',
  source: { type: 'csv', path: 'deals.csv' },
  target: { type: 'document', source: { name: 'crm' }, map: { title: 'name' } },
  schedule,
});

describe('schedule:', () => {
  it('accepts cron expressions on syncs and exports', () => {
    const parsed = projectFile.parse({
      syncs: [sync('*/15 * * * *')],
      exports: [{ name: 'out', resource: 'deals', destination: { type: 'jsonl', path: 'x.jsonl' }, schedule: '0 3 * * 1-5' }],
    });
    expect(parsed.syncs[0]?.schedule).toBe('*/15 * * * *');
    expect(parsed.exports[0]?.schedule).toBe('0 3 * * 1-5');
  });

  it('refuses a malformed cron expression with the path and an example', () => {
    const result = projectFile.safeParse({ syncs: [sync('every hour')] });
    expect(result.success).toBe(false);
    const issue = result.error?.issues.find((i) => i.path.join('.') === 'syncs.0.schedule');
    expect(issue?.message).toMatch(/not a cron expression.*\*\/15/);
  });

  it('takes a plain-identifier state schema only', () => {
    expect(projectFile.parse({ state: { url: 'postgres://h/db', schema: 'ferry_prod' } }).state.schema).toBe('ferry_prod');
    expect(projectFile.safeParse({ state: { url: 'postgres://h/db', schema: 'bad-name;drop' } }).success).toBe(false);
  });
});

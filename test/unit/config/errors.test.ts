import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatConfigIssues, loadConfig } from '../../../src/config/index.js';
import { CRM_DEALS_SYNC, issuesOf, project } from './fixtures.js';

describe('configuration errors', () => {
  it('reports every problem at once, each with file:line:col, path, expected and found', async () => {
    const dir = await project({
      'ferry.yaml': `version: 1
service:
  concurrency: 0
  maxRequestsPerSecond: fast
syncs:
  - name: CRM Deals
    source: { type: csv, path: sales_pipeline.csv }
    deletes: mirorr
    maxDeletePercent: 150
    target:
      type: row
      source: { name: "" }
      objectType: { name: deal }
      map:
        id: opportunity_id
`,
    });
    const file = path.join(dir, 'ferry.yaml');
    const { issues, error } = await issuesOf(loadConfig(file, { env: {} }));
    expect(issues).toEqual([
      { file, line: 3, column: 16, path: 'service.concurrency', message: 'must be >= 1', found: '0' },
      { file, line: 4, column: 25, path: 'service.maxRequestsPerSecond', message: 'wrong type', expected: 'a number', found: '"fast"' },
      { file, line: 6, column: 11, path: 'syncs[0].name', message: expect.stringContaining('lower-case'), found: '"CRM Deals"' },
      {
        file,
        line: 8,
        column: 14,
        path: 'syncs[0].deletes',
        message: 'unknown value (did you mean "mirror"?)',
        expected: '"ignore" | "mirror"',
        found: '"mirorr"',
      },
      { file, line: 9, column: 23, path: 'syncs[0].maxDeletePercent', message: 'must be <= 100', found: '150' },
      { file, line: 12, column: 23, path: 'syncs[0].target.source.name', message: 'must not be empty', found: '""' },
    ]);
    expect(error.code).toBe('FERRY_CONFIG_INVALID');
    expect(error.exitCode).toBe(1);
    const text = error.describe();
    expect(text).toContain('6 problems in');
    expect(text).toContain(
      `${file}:8:14  syncs[0].deletes  unknown value (did you mean "mirror"?) (expected "ignore" | "mirror", found "mirorr")`,
    );
    expect(text.split('\n').filter((line) => line.trimStart().startsWith(`${file}:`))).toHaveLength(6);
  });

  it('reports a missing required key at its parent, with what was expected', async () => {
    const dir = await project({
      'ferry.yaml': `syncs:
  - name: crm-deals
    source: { type: csv }
    target:
      type: row
      objectType: { name: deal }
      map: { id: opportunity_id }
`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({ line: 4, column: 5, path: 'syncs[0].target.source', message: 'missing required key "source"', expected: 'a mapping' }),
    ]);
    expect(issues[0]?.found).toBeUndefined();
  });

  it('points an unknown key at the key itself and suggests the closest known one', async () => {
    const dir = await project({
      'ferry.yaml': `service:
  baseURL: embedded
  retries: 3
syncs:
${CRM_DEALS_SYNC.replace('    target:\n', '    incremental: { cursr: close_date }\n    target:\n')}`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({ line: 2, column: 3, path: 'service.baseURL', message: 'unknown key "baseURL" (did you mean "baseUrl"?)' }),
      expect.objectContaining({
        line: 3,
        column: 3,
        path: 'service.retries',
        message: 'unknown key "retries"',
        expected: expect.stringContaining('maxAttempts'),
      }),
      // The required `cursor` is missing too; both are reported.
      expect.objectContaining({ line: 10, column: 5, path: 'syncs[0].incremental.cursor', message: 'missing required key "cursor"' }),
      expect.objectContaining({ line: 10, column: 20, path: 'syncs[0].incremental.cursr', message: 'unknown key "cursr" (did you mean "cursor"?)' }),
    ]);
  });

  it('explains the union of a field declaration from the form that was used', async () => {
    const dir = await project({
      'ferry.yaml': `syncs:
${CRM_DEALS_SYNC.replace('stage: string', 'stage: { type: strng, lable: Stage }').replace('amount: { type: double, label: Close value }', 'amount: dobule')}`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues.map(({ path: p, message, line, column }) => ({ p, message, line, column }))).toEqual([
      { p: 'syncs[0].target.objectType.fields.amount', message: 'unknown value (did you mean "double"?)', line: 14, column: 19 },
      { p: 'syncs[0].target.objectType.fields.stage.type', message: 'unknown value (did you mean "string"?)', line: 15, column: 26 },
      { p: 'syncs[0].target.objectType.fields.stage.lable', message: 'unknown key "lable" (did you mean "label"?)', line: 15, column: 33 },
    ]);
  });

  it('says why an interpolated number is refused', async () => {
    const dir = await project({ 'ferry.yaml': 'service:\n  concurrency: ${FERRY_CONCURRENCY:-4}\n' });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues[0]).toMatchObject({ path: 'service.concurrency', expected: 'a number', found: '"4"' });
    expect(issues[0]?.message).toContain('unquoted');
  });

  it('never echoes secrets in found, and masks credentials in URLs', async () => {
    const dir = await project({
      'ferry.yaml': `service:
  apiKey: 12345678901234
syncs:
  - name: crm-deals
    source:
      type: postgres
      url: postgres://ferry:hunter2@db/crm
      password: \${PGPASSWORD}
    deletes: postgres://ferry:hunter2@db/crm
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map: { id: id }
      newFields: { token: abc }
`,
    });
    const { issues, error } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: { PGPASSWORD: 'hunter2' } }));
    expect(issues.find((issue) => issue.path === 'service.apiKey')?.found).toBe('***');
    expect(issues.find((issue) => issue.path === 'syncs[0].deletes')?.found).toBe('"postgres://ferry:***@db/crm"');
    const everything = `${error.describe()}\n${JSON.stringify(error.details)}`;
    expect(everything).not.toContain('hunter2');
    expect(everything).not.toContain('12345678901234');
  });

  it('reports YAML syntax errors with their position, once, not as a cascade', async () => {
    const dir = await project({
      'ferry.yaml': `syncs:
  - name: crm-deals
    source: { type: csv, path: a.csv
    target:
      type: row
`,
    });
    const file = path.join(dir, 'ferry.yaml');
    const { issues } = await issuesOf(loadConfig(file, { env: {} }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ file, path: '', message: expect.stringMatching(/^YAML syntax: /) });
    expect(issues[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it('reports duplicate keys as YAML errors at the second key', async () => {
    const dir = await project({ 'ferry.yaml': 'service:\n  concurrency: 4\n  concurrency: 8\n' });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([expect.objectContaining({ line: 3, column: 3, message: expect.stringContaining('unique') })]);
  });

  it('refuses more than one YAML document in a file', async () => {
    const dir = await project({ 'ferry.yaml': 'version: 1\n---\nsyncs: []\n' });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([expect.objectContaining({ line: 2, column: 1, message: expect.stringContaining('one YAML document') })]);
  });

  it('refuses a file whose top level is not a mapping', async () => {
    const dir = await project({ 'ferry.yaml': '- name: crm-deals\n' });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([expect.objectContaining({ line: 1, column: 1, path: '', expected: 'a mapping' })]);
  });
});

describe('formatConfigIssues', () => {
  it('prints one line per issue, relative to the cwd when inside it', () => {
    const text = formatConfigIssues(
      [
        { file: '/proj/ferry.yaml', line: 3, column: 5, path: 'syncs[0].deletes', message: 'not an allowed value', expected: '"ignore" | "mirror"', found: '"x"' },
        { file: '/proj/pipelines/crm.yaml', line: 1, column: 1, path: '', message: 'YAML syntax: bad' },
      ],
      '/proj',
    );
    expect(text).toBe(
      'ferry.yaml:3:5  syncs[0].deletes  not an allowed value (expected "ignore" | "mirror", found "x")\n' +
        'pipelines/crm.yaml:1:1  (top level)  YAML syntax: bad',
    );
  });
});

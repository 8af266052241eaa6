import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { interpolateString } from '../../../src/config/interpolate.js';
import { CRM_DEALS_SYNC, issuesOf, project } from './fixtures.js';

describe('interpolateString', () => {
  it('substitutes whole and partial strings', () => {
    expect(interpolateString('${HOST}', { HOST: 'db' }).value).toBe('db');
    expect(interpolateString('postgres://${USER}@${HOST}:5432/crm', { USER: 'ana', HOST: 'db' }).value).toBe(
      'postgres://ana@db:5432/crm',
    );
  });

  it('uses the default when the variable is unset or empty, like the shell', () => {
    expect(interpolateString('${PORT:-5432}', {}).value).toBe('5432');
    expect(interpolateString('${PORT:-5432}', { PORT: '' }).value).toBe('5432');
    expect(interpolateString('${PORT:-5432}', { PORT: '6543' }).value).toBe('6543');
    expect(interpolateString('${KEY:-}', {}).value).toBe('');
    expect(interpolateString('${URL:-http://localhost:8080/v1}', {}).value).toBe('http://localhost:8080/v1');
  });

  it('keeps an empty variable without default as empty', () => {
    expect(interpolateString('[${EMPTY}]', { EMPTY: '' })).toEqual({ value: '[]', problems: [] });
  });

  it('turns $${…} into a literal ${…} and leaves JSONata $ and $$ alone', () => {
    expect(interpolateString('$${HOME} and ${A}', { A: 'x', HOME: '/root' }).value).toBe('${HOME} and x');
    expect(interpolateString('$string($$.id) & $count(items)', {}).value).toBe('$string($$.id) & $count(items)');
  });

  it('reports a missing variable, a malformed reference and an unterminated one', () => {
    expect(interpolateString('${NOPE}', {}).problems[0]?.message).toContain('NOPE is not set');
    expect(interpolateString('${1BAD}', {}).problems[0]?.message).toContain('malformed');
    expect(interpolateString('${A:default}', { A: 'x' }).problems[0]?.message).toContain('malformed');
    expect(interpolateString('cost ${A', { A: 'x' }).problems[0]?.message).toContain('unterminated');
  });
});

describe('loadConfig interpolation', () => {
  it('interpolates before validation, from options.env, keeping whole-value references as strings', async () => {
    const dir = await project({
      'ferry.yaml': `version: 1
service:
  baseUrl: \${FERRY_BASE_URL:-embedded}
  apiKey: \${FERRY_API_KEY:-}
syncs:
  - name: crm-deals
    source:
      type: postgres
      url: postgres://\${PGUSER}:\${PGPASSWORD}@\${PGHOST:-localhost}/crm
      port: \${PGPORT}
      table: deals
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map: { id: $string(id), label: "$\${not a var}" }
`,
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), {
      env: { FERRY_BASE_URL: 'https://api.example.test', PGUSER: 'ana', PGPASSWORD: 's3cret', PGPORT: '6543' },
    });
    expect(config.service.baseUrl).toBe('https://api.example.test');
    expect(config.service.apiKey).toBe('');
    const sync = config.syncs[0];
    expect(sync?.source).toMatchObject({ url: 'postgres://ana:s3cret@localhost/crm', port: '6543' });
    expect(sync?.target.map).toEqual({ id: '$string(id)', label: '${not a var}' });
  });

  it('names a missing variable and where it is used, for every use', async () => {
    const dir = await project({
      'ferry.yaml': `service:
  apiKey: \${FERRY_API_KEY}
syncs:
${CRM_DEALS_SYNC.replace('primaryKey: opportunity_id', 'primaryKey: opportunity_id\n      encoding: ${CSV_ENCODING}')}`,
    });
    const file = path.join(dir, 'ferry.yaml');
    const { issues, error } = await issuesOf(loadConfig(file, { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({ file, line: 2, column: 11, path: 'service.apiKey', message: expect.stringContaining('FERRY_API_KEY') }),
      expect.objectContaining({ file, line: 9, column: 17, path: 'syncs[0].source.encoding', message: expect.stringContaining('CSV_ENCODING') }),
    ]);
    expect(error.message).toContain('2 problems');
  });

  it('points at the reference inside a longer string', async () => {
    const dir = await project({
      'ferry.yaml': `state:\n  url: "postgres://ferry:\${PGPASS}@db/ferry"\n`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues[0]).toMatchObject({ line: 2, column: 26, path: 'state.url' });
  });

  it('does not interpolate keys or comments', async () => {
    const dir = await project({
      'ferry.yaml': `# \${NOT_SET} in a comment is fine
syncs:
${CRM_DEALS_SYNC.replace('stage: deal_stage', '"${weird}": deal_stage')}`,
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    expect(config.syncs[0]?.target.map?.fields).toHaveProperty('${weird}', 'deal_stage');
  });

  it('reads process.env when no env is given', async () => {
    process.env.FERRY_TEST_CONCURRENCY_URL = 'https://from-process-env.test';
    try {
      const dir = await project({ 'ferry.yaml': 'service:\n  baseUrl: ${FERRY_TEST_CONCURRENCY_URL}\n' });
      const config = await loadConfig(path.join(dir, 'ferry.yaml'));
      expect(config.service.baseUrl).toBe('https://from-process-env.test');
    } finally {
      delete process.env.FERRY_TEST_CONCURRENCY_URL;
    }
  });
});

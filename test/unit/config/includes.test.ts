import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { CRM_DEALS_SYNC, SALES_PIPELINE, issuesOf, project } from './fixtures.js';

const ACCOUNTS_SYNC = `syncs:
  - name: crm-accounts
    source: { type: csv, path: ../data/accounts.csv, primaryKey: account }
    target:
      type: row
      source: { name: crm }
      objectType: { name: account }
      map: { id: account, name: account, fields: { sector: sector, revenue: revenue } }
`;

const DOCS_EXPORT = `exports:
  - name: rows-to-warehouse
    resource: rows
    destination: { type: jsonl, path: out/rows.jsonl }
`;

describe('include:', () => {
  it('loads syncs and exports from globs and plain paths, in include order then file name order', async () => {
    const dir = await project({
      'ferry.yaml': `include: [pipelines/*.yaml, exports.yaml]\nsyncs:\n${CRM_DEALS_SYNC}`,
      'pipelines/b-accounts.yaml': ACCOUNTS_SYNC,
      'pipelines/a-products.yaml': ACCOUNTS_SYNC.replace('crm-accounts', 'crm-products').replace('accounts.csv', 'products.csv'),
      'pipelines/notes.txt': 'not yaml, not matched',
      'exports.yaml': DOCS_EXPORT,
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    expect(config.syncs.map((sync) => [sync.name, path.relative(dir, sync.file)])).toEqual([
      ['crm-deals', 'ferry.yaml'],
      ['crm-products', 'pipelines/a-products.yaml'],
      ['crm-accounts', 'pipelines/b-accounts.yaml'],
    ]);
    expect(config.exports).toEqual([expect.objectContaining({ name: 'rows-to-warehouse', file: path.join(dir, 'exports.yaml'), details: false })]);
    expect(config.warnings).toEqual([]);
  });

  it("gives each sync the directory of its own file as baseDir, and locates into that file", async () => {
    const dir = await project({
      'project/ferry.yaml': 'include: [../shared/pipelines/*.yaml]\n',
      'shared/pipelines/accounts.yaml': ACCOUNTS_SYNC,
    });
    const config = await loadConfig(path.join(dir, 'project/ferry.yaml'), { env: {} });
    const sync = config.syncs[0];
    expect(sync?.baseDir).toBe(path.join(dir, 'shared/pipelines'));
    // The connector resolves its own path against baseDir:
    expect(path.resolve(sync?.baseDir ?? '', String(sync?.source.path))).toBe(path.join(dir, 'shared/data/accounts.csv'));
    expect(sync?.locate(['target', 'objectType', 'name'])).toEqual({ file: path.join(dir, 'shared/pipelines/accounts.yaml'), line: 7, column: 27 });
  });

  it('warns when a glob matches nothing, and fails when a plain path is missing', async () => {
    const dir = await project({ 'ferry.yaml': `include:\n  - pipelines/*.yaml\n  - extra/crm.yaml\n` });
    const file = path.join(dir, 'ferry.yaml');
    const { issues } = await issuesOf(loadConfig(file, { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({ file, line: 3, column: 5, path: 'include[1]', message: expect.stringContaining('not found') }),
    ]);

    const ok = await project({ 'ferry.yaml': `include:\n  - pipelines/*.yaml\n` });
    const config = await loadConfig(path.join(ok, 'ferry.yaml'), { env: {} });
    expect(config.warnings).toEqual(['ferry.yaml:2:5  include[0]  "pipelines/*.yaml" matched no files'.replace('ferry.yaml', path.join(ok, 'ferry.yaml'))]);
  });

  it('refuses nested includes', async () => {
    const dir = await project({
      'ferry.yaml': 'include: [pipelines/*.yaml]\n',
      'pipelines/crm.yaml': `include: [more/*.yaml]\n${ACCOUNTS_SYNC}`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({
        file: path.join(dir, 'pipelines/crm.yaml'),
        line: 1,
        column: 1,
        path: 'include',
        message: expect.stringContaining('includes do not nest'),
      }),
    ]);
  });

  it('only allows syncs and exports in an included file', async () => {
    const dir = await project({
      'ferry.yaml': 'include: [crm.yaml]\n',
      'crm.yaml': `service:\n  concurrency: 4\n${ACCOUNTS_SYNC}`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([expect.objectContaining({ line: 1, column: 1, path: 'service', message: 'unknown key "service"' })]);
  });

  it('reports duplicate sync and export names across files at the second one', async () => {
    const dir = await project({
      'ferry.yaml': `include: [pipelines/*.yaml]\nsyncs:\n${CRM_DEALS_SYNC}${DOCS_EXPORT}`,
      'pipelines/crm.yaml': `${ACCOUNTS_SYNC}${CRM_DEALS_SYNC}${DOCS_EXPORT}`,
    });
    const included = path.join(dir, 'pipelines/crm.yaml');
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({
        file: included,
        line: 9,
        column: 11,
        path: 'syncs[1].name',
        message: expect.stringMatching(/duplicate sync name "crm-deals" \(first declared at .*ferry\.yaml:3:11\)/),
      }),
      expect.objectContaining({ file: included, line: 30, path: 'exports[0].name', message: expect.stringContaining('duplicate export name') }),
    ]);
  });

  it('collects problems from every file in one error', async () => {
    const dir = await project({
      'ferry.yaml': `include: [pipelines/*.yaml]\nservice:\n  concurency: 4\nsyncs:\n${CRM_DEALS_SYNC}`,
      'pipelines/a.yaml': ACCOUNTS_SYNC.replace('type: row', 'type: rows'),
      'pipelines/b.yaml': 'syncs:\n  - name: broken\n    source: { type: csv, path: x.csv\n',
    });
    const { issues, error } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues.map((issue) => [path.relative(dir, issue.file), issue.path])).toEqual([
      ['ferry.yaml', 'service.concurency'],
      ['pipelines/a.yaml', 'syncs[0].target.type'],
      ['pipelines/b.yaml', ''],
    ]);
    expect(error.message).toMatch(/^3 problems in /);
    expect(SALES_PIPELINE).toContain('sales_pipeline.csv');
  });

  it('reads each file once even when two entries match it, and never re-reads the project file', async () => {
    const dir = await project({
      'ferry.yaml': 'include: ["*.yaml", accounts.yaml]\n',
      'accounts.yaml': ACCOUNTS_SYNC,
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    expect(config.syncs.map((sync) => sync.name)).toEqual(['crm-accounts']);
  });
});

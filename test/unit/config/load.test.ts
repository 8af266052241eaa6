import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { FerryError } from '../../../src/sdk/errors.js';
import { CRM_DEALS_SYNC, SALES_PIPELINE, issuesOf, project } from './fixtures.js';

describe('loadConfig', () => {
  it('loads a realistic project with defaults filled in', async () => {
    const dir = await project({ 'ferry.yaml': `version: 1\nsyncs:\n${CRM_DEALS_SYNC}` });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    expect(config.file).toBe(path.join(dir, 'ferry.yaml'));
    expect(config.baseDir).toBe(dir);
    // The embedded emulator has no rate limit: its default ceiling never paces.
    expect(config.service).toMatchObject({ baseUrl: 'embedded' });
    // No bounds unless set: the concurrency and the rate are found from the service's answers.
    expect(config.service.concurrency).toBeUndefined();
    expect(config.service.maxRequestsPerSecond).toBeUndefined();
    expect(config.warnings).toEqual([]);
    const sync = config.syncs[0];
    expect(sync).toMatchObject({
      name: 'crm-deals',
      file: path.join(dir, 'ferry.yaml'),
      baseDir: dir,
      deletes: 'ignore',
      maxDeletePercent: 20,
      source: { type: 'csv', path: SALES_PIPELINE, primaryKey: 'opportunity_id' },
      target: { type: 'row', newFields: 'evolve', objectType: { name: 'deal' } },
    });
    expect(sync?.target.objectType?.fields).toEqual({
      amount: { type: 'double', label: 'Close value', required: false },
      stage: { type: 'string', required: false, label: undefined },
    });
  });

  it('sets no rate ceiling by default, against a real service or the emulator, and keeps one that is set', async () => {
    const service = async (yaml: string, env: Record<string, string> = {}) => {
      const dir = await project({ 'ferry.yaml': `version: 1\nservice: ${yaml}\nsyncs:\n${CRM_DEALS_SYNC}` });
      return (await loadConfig(path.join(dir, 'ferry.yaml'), { env })).service;
    };
    expect((await service('{ baseUrl: "https://api.example.com", apiKey: k }')).maxRequestsPerSecond).toBeUndefined();
    expect((await service('{ baseUrl: "${FERRY_BASE_URL:-embedded}" }', { FERRY_BASE_URL: 'https://api.example.com' })).maxRequestsPerSecond).toBeUndefined();
    expect((await service('{ baseUrl: "${FERRY_BASE_URL:-embedded}" }')).maxRequestsPerSecond).toBeUndefined();
    expect((await service('{ baseUrl: "https://api.example.com", apiKey: k, concurrency: 4 }')).concurrency).toBe(4);
    expect((await service('{ baseUrl: embedded, maxRequestsPerSecond: 50 }')).maxRequestsPerSecond).toBe(50);
  });

  it('keeps map values as written: expressions, nested mappings and literals', async () => {
    const dir = await project({
      'ferry.yaml': `syncs:
  - name: qmsum-meetings
    source: { type: jsonl, path: ../datasets/qmsum/meetings.jsonl }
    group: { by: meeting_id }
    target:
      type: conversation
      source: { name: qmsum }
      map:
        id: key
        title: records[0].topic
        public: true
        priority: 3
        note: null
        tags: [meeting, qmsum]
        participants:
          organizer: { email: "records[0].organizer_email", name: "records[0].organizer" }
        transcript: 'records.{ "speakerName": speaker, "text": text }'
`,
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    expect(config.syncs[0]?.target.map).toEqual({
      id: 'key',
      title: 'records[0].topic',
      public: true,
      priority: 3,
      note: null,
      tags: ['meeting', 'qmsum'],
      participants: { organizer: { email: 'records[0].organizer_email', name: 'records[0].organizer' } },
      transcript: 'records.{ "speakerName": speaker, "text": text }',
    });
    expect(config.syncs[0]?.group).toEqual({ by: 'meeting_id' });
  });

  it('resolves state.url, emulator paths and local plugins against the project file, not the cwd', async () => {
    const dir = await project({
      'ops/ferry.yaml': `state:
  url: sqlite:../state/ferry.db
emulator:
  db: data/emulator.db
  seed: seeds/crm.json
plugins: [./plugins/zendesk, ferry-connector-hubspot]
`,
    });
    const config = await loadConfig(path.join(dir, 'ops/ferry.yaml'), { env: {} });
    expect(config.state.url).toBe(`sqlite:${path.join(dir, 'state/ferry.db')}`);
    expect(config.emulator).toEqual({ db: path.join(dir, 'ops/data/emulator.db'), seed: path.join(dir, 'ops/seeds/crm.json') });
    expect(config.plugins).toEqual([path.join(dir, 'ops/plugins/zendesk'), 'ferry-connector-hubspot']);
  });

  it('applies path defaults next to the project file and leaves postgres and :memory: alone', async () => {
    const empty = await project({ 'ferry.yaml': '' });
    const defaults = await loadConfig(path.join(empty, 'ferry.yaml'), { env: {} });
    expect(defaults.state.url).toBe(`sqlite:${path.join(empty, 'state/ferry.db')}`);
    expect(defaults.emulator.db).toBe(path.join(empty, 'state/emulator.db'));
    expect(defaults.syncs).toEqual([]);

    const dir = await project({
      'ferry.yaml': 'state: { url: "postgres://ferry:pw@db:5432/ferry" }\nemulator: { db: ":memory:" }\n',
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    expect(config.state.url).toBe('postgres://ferry:pw@db:5432/ferry');
    expect(config.emulator.db).toBe(':memory:');
  });

  it('reads metrics.pushgateway and its job, and refuses a URL that is not http(s)', async () => {
    const defaults = await loadConfig(path.join(await project({ 'ferry.yaml': '' }), 'ferry.yaml'), { env: {} });
    expect(defaults.metrics).toEqual({ job: 'ferry' });
    const dir = await project({ 'ferry.yaml': 'metrics:\n  pushgateway: ${PUSHGATEWAY}\n  job: crm\n' });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: { PUSHGATEWAY: 'http://pushgateway:9091' } });
    expect(config.metrics).toEqual({ pushgateway: 'http://pushgateway:9091', job: 'crm' });
    const bad = await project({ 'ferry.yaml': 'metrics:\n  pushgateway: pushgateway:9091\n' });
    const { issues } = await issuesOf(loadConfig(path.join(bad, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([expect.objectContaining({ line: 2, path: 'metrics.pushgateway' })]);
  });

  it('rejects a state url that is neither sqlite: nor postgres://', async () => {
    const dir = await project({ 'ferry.yaml': 'state:\n  url: state/ferry.db\n' });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([expect.objectContaining({ line: 2, column: 8, path: 'state.url', found: '"state/ferry.db"' })]);
  });

  it('requires objectType for a row target, and refuses it on other targets', async () => {
    const dir = await project({
      'ferry.yaml': `syncs:
  - name: deals
    source: { type: csv, path: deals.csv }
    target:
      type: row
      source: { name: crm }
      map: { id: opportunity_id }
  - name: emails
    source: { type: mbox, path: mail.mbox }
    target:
      type: message
      source: { name: mail }
      objectType: { name: email }
      map: { id: message_id }
`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues).toEqual([
      expect.objectContaining({ line: 4, column: 5, path: 'syncs[0].target.objectType', message: 'a row target needs objectType: { name }' }),
      expect.objectContaining({ line: 13, column: 19, path: 'syncs[1].target.objectType', message: expect.stringContaining('only applies to row') }),
    ]);
  });

  it('reports a missing row objectType even when the same sync has other problems', async () => {
    const dir = await project({
      'ferry.yaml': `syncs:
  - name: deals
    source: { type: csv }
    deletes: sometimes
    target:
      type: row
      source: { name: crm }
      map: { id: opportunity_id }
`,
    });
    const { issues } = await issuesOf(loadConfig(path.join(dir, 'ferry.yaml'), { env: {} }));
    expect(issues.map((issue) => issue.path)).toEqual(['syncs[0].deletes', 'syncs[0].target.objectType']);
  });

  it('locates keys under a sync for later stages', async () => {
    const dir = await project({ 'ferry.yaml': `syncs:\n${CRM_DEALS_SYNC}` });
    const file = path.join(dir, 'ferry.yaml');
    const sync = (await loadConfig(file, { env: {} })).syncs[0];
    expect(sync?.keyPath).toEqual(['syncs', 0]);
    expect(sync?.locate(['source', 'primaryKey'])).toEqual({ file, line: 6, column: 19 });
    expect(sync?.locate(['target', 'map', 'fields', 'amount'])).toEqual({ file, line: 20, column: 19 });
    expect(sync?.locate(['target', 'map', 'fields', 'amount'], { atKey: true })).toEqual({ file, line: 20, column: 11 });
    // A key that is not there points at the mapping it would belong in.
    expect(sync?.locate(['source', 'delimiter'])).toEqual({ file, line: 3, column: 5 });
    expect(sync?.locate([])).toEqual({ file, line: 2, column: 5 });
  });

  it('says how to start when the file does not exist', async () => {
    const dir = await project({});
    const error = await loadConfig(path.join(dir, 'ferry.yaml')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FerryError);
    expect((error as FerryError).code).toBe('FERRY_CONFIG_INVALID');
    expect((error as FerryError).hint).toContain('ferry init');
    expect((error as FerryError).exitCode).toBe(1);
  });
});

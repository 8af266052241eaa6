/**
 * The http source inside whole runs: a temp project (embedded emulator in
 * memory, SQLite state) reading a local API through runProject, and the
 * shipped example pipelines/http against its demo API.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoData, startDemoApi, type DemoApi } from '../../../pipelines/http/demo-api.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import { items, startApi, type TestApi } from './http-fixture.js';

const logger = pino({ level: 'silent' });

describe('http source in a project run', () => {
  let api: TestApi;
  const rows = items(23);
  let dir: string;

  beforeAll(async () => {
    api = await startApi(({ url, headers }) => {
      if (headers['x-api-key'] !== 'k-123456') return { status: 401, json: { error: 'no key' } };
      const since = url.searchParams.get('modified_after');
      const matching = rows.filter((row) => since === null || row.updated_at >= since);
      const offset = Number(url.searchParams.get('offset'));
      const limit = Number(url.searchParams.get('limit'));
      return { json: { result: { rows: matching.slice(offset, offset + limit) } } };
    });
    dir = mkdtempSync(join(tmpdir(), 'ferry-http-project-'));
    const source = (extra: string) => `
    source:
      type: http
      baseUrl: ${api.url}
      auth: { type: apiKey, in: header, name: X-Api-Key, value: "\${HTTP_TEST_KEY}" }
      path: /items
      recordSelector: $.result.rows
      primaryKey: id
      pagination: { type: offset, limit: 5 }${extra}`;
    const target = (name: string) => `
    target:
      type: row
      source: { name: http-test, displayName: HTTP test }
      objectType:
        name: ${name}
        displayName: ${name}
        fields: { updated_at: { type: datetime, label: Updated } }
      map:
        id: $string(id)
        name: name
        public: true
        fields: { updated_at: updated_at }`;
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service:
  baseUrl: embedded
emulator:
  db: ':memory:'
state:
  url: sqlite:${join(dir, 'ferry.db')}
syncs:
  - name: items-incremental${source(`
      incremental: { param: modified_after, format: iso }`)}
    incremental: { cursor: updated_at }${target('item')}
`,
    );
    process.env.HTTP_TEST_KEY = 'k-123456';
  });
  afterAll(async () => {
    await api.close();
    delete process.env.HTTP_TEST_KEY;
  });

  it('pushes every record once, then nothing on the second run', async () => {
    const configFile = join(dir, 'ferry.yaml');
    const first = await runProject({ configFile, syncNames: [], quiet: true, logger });
    expect(first.map((s) => [s.sync, s.status, s.counts.read, s.counts.created])).toEqual([['items-incremental', 'succeeded', 23, 23]]);
    expect(first[0]!.cursor).toEqual({ value: rows.at(-1)!.updated_at, key: '23' });
    expect(api.requests.every((r) => !r.url.searchParams.has('modified_after'))).toBe(true);

    api.requests.length = 0;
    const second = await runProject({ configFile, syncNames: [], quiet: true, logger });
    expect(second.map((s) => [s.sync, s.status, s.counts.read, s.counts.pushed])).toEqual([['items-incremental', 'succeeded', 0, 0]]);
    // The read starts from the stored cursor (the API's ">=" answer, item 23, is dropped client-side);
    // the other request is discover() sampling field types for the row target.
    expect(api.requests.map((r) => r.url.search).sort()).toEqual([
      `?modified_after=${encodeURIComponent(rows.at(-1)!.updated_at)}&offset=0&limit=5`,
      '?offset=0&limit=5',
    ]);

    rows.push(...items(2, 24));
    const third = await runProject({ configFile, syncNames: [], quiet: true, logger });
    expect(third.map((s) => [s.sync, s.counts.read, s.counts.created])).toEqual([['items-incremental', 2, 2]]);
    expect(third[0]!.cursor).toEqual({ value: rows.at(-1)!.updated_at, key: '25' });
  });
});

describe('the example pipelines/http against its demo API', () => {
  let demo: DemoApi;
  const saved = { ...process.env };
  beforeAll(async () => {
    // Two agents keep the run short; the full data set is 35 agents and 8800 deals.
    demo = await startDemoApi({ token: 'demo-token', agents: 2 });
    const dir = mkdtempSync(join(tmpdir(), 'ferry-http-example-'));
    Object.assign(process.env, {
      DEMO_API_URL: demo.url,
      FERRY_STATE_URL: `sqlite:${join(dir, 'ferry.db')}`,
      FERRY_EMULATOR_DB: join(dir, 'emulator.db'),
    });
  });
  afterAll(async () => {
    await demo.close();
    for (const key of ['DEMO_API_URL', 'FERRY_STATE_URL', 'FERRY_EMULATOR_DB']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it('runs both syncs, and the incremental one reads nothing new the second time', async () => {
    const configFile = join(import.meta.dirname, '../../../pipelines/http/ferry.yaml');
    const { agents, deals } = loadDemoData();
    const dealCount = agents.slice(0, 2).reduce((sum, agent) => sum + deals.get(agent.id)!.length, 0);
    expect(dealCount).toBeGreaterThan(300);
    const first = await runProject({ configFile, syncNames: [], quiet: true, logger });
    expect(first.map((s) => [s.sync, s.status, s.counts.created])).toEqual([
      ['demo-agents', 'succeeded', 2],
      ['demo-deals', 'succeeded', dealCount],
    ]);
    const second = await runProject({ configFile, syncNames: [], quiet: true, logger });
    expect(second.map((s) => [s.sync, s.counts.read, s.counts.pushed])).toEqual([
      ['demo-agents', 2, 0],
      ['demo-deals', 0, 0],
    ]);
  });
});

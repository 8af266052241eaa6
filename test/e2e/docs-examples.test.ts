/**
 * Every YAML example in README.md and docs/ is run, so a documented example
 * can no longer dead-letter what it promises to land.
 *
 * - A whole sync or export (`syncs:` / `exports:`) runs against the embedded
 *   emulator: all of them in one `ferry run --json` (one process), each in its
 *   own folder with its own names, so they cannot meet in the ledger or the
 *   service. Every record a sync reads must land: nothing rejected, nothing
 *   failed. Relative paths find small real data in a fixture tree:
 *   `data/sales_pipeline.csv` (CRM deals), `data/accounts.csv`,
 *   `data/transcript/*.json` (Harper Valley calls), `data/mail.mbox` (an
 *   Enron mailbox), `data/handbook/*.md` (18F handbook pages),
 *   `data/meetings/*` (transcripts), `data/mail/eml/*.eml`,
 *   `data/mail/Maildir`, `data/slack/export.zip` (test/fixtures),
 *   `qmsum/ALL/…` and `../datasets/…` (the shared datasets).
 * - A fragment (a `source:`, `map:`, `destination:`, `pagination:` …) is put
 *   into a skeleton sync or export and must pass `ferry check`'s
 *   configuration, options and mapping checks (one `ferry check --json`).
 * - What cannot run here is listed in NOT_RUNNABLE with the reason; keep the
 *   list short. A block that is not a ferry file at all (a Kubernetes
 *   manifest, Prometheus rules) is recognised and left alone.
 *
 * Writing a new example: make it whole (`syncs:` with source, target and
 * map) over paths the fixture tree has, or add what it reads to the tree.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { dropSchemas, freshSchema, PG_URL } from '../helpers/postgres.js';
import { kindOf, yamlExamples, type YamlExample } from './docs-examples/extract.js';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

const MYSQL_URL = process.env.FERRY_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const ROOT = resolve(import.meta.dirname, '../..');
const DATASETS = resolve(ROOT, '../shared/datasets');

/** Blocks that cannot run here: a substring of the block (and its file) → why. */
const NOT_RUNNABLE: { file: string; contains: string; reason: string }[] = [
  { file: 'README.md', contains: 'type: postgres\n      url: postgres://ferry:${PGPASSWORD}@db.internal', reason: 'reads a PostgreSQL server at db.internal; pipelines/databases/ runs the same sync against a local one' },
  { file: 'README.md', contains: 'name: orders', reason: 'shared state and an orders table on a PostgreSQL server, for `ferry worker`' },
  { file: 'docs/configuration.md', contains: '- name: orders', reason: 'an orders table on a PostgreSQL server' },
  { file: 'docs/configuration.md', contains: 'label: "costs $${AMOUNT}"', reason: 'shows ${VAR} interpolation on keys of no particular place' },
  { file: 'docs/configuration.md', contains: '# yaml-language-server: $schema=./ferry.schema.json\n', reason: 'the schema comment line alone' },
  { file: 'docs/databases.md', contains: 'name: deals', reason: 'reads a PostgreSQL server at db.internal; pipelines/databases/ runs the same sync against a local one' },
  { file: 'docs/connector-authors.md', contains: 'type: ./ferry-connector-tickets', reason: 'needs the package `ferry connector new` scaffolds (test/e2e/connector-new.test.ts runs it)' },
  { file: 'docs/connector-authors.md', contains: 'ferry-connector-zendesk', reason: 'names plugin packages that are not installed' },
  { file: 'docs/http-connector.md', contains: 'name: helpdesk-tickets', reason: 'reads a third-party API at api.helpdesk.example (test/integration/connectors covers the http source against local servers)' },
  { file: 'docs/service-source.md', contains: 'name: copy-deals', reason: 'copies between two organizations of a running service' },
  { file: 'docs/cdc.md', contains: 'type: postgres-cdc', reason: 'needs a table and a role with REPLICATION on a PostgreSQL server; test/e2e/postgres-cdc.test.ts runs the same shape of sync against the local one' },
  { file: 'docs/scale-out.md', contains: 'url: postgres://ferry:${FERRY_STATE_PASSWORD}', reason: 'state on a PostgreSQL server, for `ferry worker`' },
];

function notRunnable(example: YamlExample): string | undefined {
  return NOT_RUNNABLE.find((entry) => entry.file === example.file && example.text.includes(entry.contains))?.reason;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const examples = yamlExamples(ROOT);
let project: string;
/** A local API that answers every request with an empty list, for the http fragments' reachability check. */
let api: Server;
let apiUrl = 'http://127.0.0.1:9';
/** Where examples that write PostgreSQL tables write them: a fresh schema of the local server. */
const pgSchema = freshSchema('ferry_docs');

/**
 * `${VAR}`s the examples use without a default: the reader sets them; here
 * they get harmless values (URLs point at a closed local port).
 */
const exampleEnv: Record<string, string> = Object.fromEntries(
  [...new Set(examples.flatMap((example) => [...example.text.matchAll(/(?<!\$)\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((m) => m[1] ?? '')))].map((name) => [
    name,
    /(DATABASE|DB|WAREHOUSE|PG)\w*URL$/.test(name) ? PG_URL : /URL$/.test(name) ? 'http://127.0.0.1:9' : `example-${name.toLowerCase()}`,
  ]),
);
const ferryEnv = (): Record<string, string> => ({ ...exampleEnv, FERRY_LOG_LEVEL: 'warn' });

/** Databases the examples name, moved onto the local servers. */
function local(connector: unknown): unknown {
  if (!isObject(connector)) return connector;
  if (connector.type === 'postgres-table' || connector.type === 'postgres') return { ...connector, url: PG_URL, schema: pgSchema };
  if (connector.type === 'mysql') return { ...connector, url: MYSQL_URL };
  return connector;
}

/** Small real data at the paths the examples use. */
function fixtureTree(dir: string): void {
  const data = join(dir, 'data');
  mkdirSync(join(data, 'handbook'), { recursive: true });
  const deals = readFileSync(join(DATASETS, 'crm-sales-opportunities/sales_pipeline.csv'), 'utf8').split('\n');
  writeFileSync(join(data, 'sales_pipeline.csv'), `${deals.slice(0, 121).join('\n')}\n`);
  cpSync(join(DATASETS, 'crm-sales-opportunities/accounts.csv'), join(data, 'accounts.csv'));
  symlinkSync(join(DATASETS, 'harper-valley-calls/data/transcript'), join(data, 'transcript'));
  cpSync(join(DATASETS, 'enron-mbox/enron.allen-p.straw'), join(data, 'mail.mbox'));
  const pages = join(DATASETS, 'documents/18f-handbook/pages/general-information-and-resources');
  for (const page of readdirSync(pages).filter((name) => name.endsWith('.md')).slice(0, 3)) cpSync(join(pages, page), join(data, 'handbook', page));
  symlinkSync(join(DATASETS, 'qmsum'), join(dir, 'qmsum'));
  // The conversation-native sources' test fixtures (transcripts, .eml and Maildir, a Slack export).
  const fixtures = resolve(ROOT, 'test/fixtures');
  cpSync(join(fixtures, 'transcript'), join(data, 'meetings'), { recursive: true });
  cpSync(join(fixtures, 'mail'), join(data, 'mail'), { recursive: true, filter: (from) => !from.includes('eml-bad') });
  cpSync(join(fixtures, 'slack'), join(data, 'slack'), { recursive: true });
}

/** Each example in its own folder beside the fixture tree, its names made unique. */
function placed(example: YamlExample, index: number, value: Json): Json {
  const tag = `ex${index}`;
  const rename = (entry: unknown): unknown => {
    if (!isObject(entry)) return entry;
    const copy: Json = { ...entry, name: `${tag}-${String(entry.name)}` };
    if ('source' in copy) copy.source = local(copy.source);
    if ('destination' in copy) copy.destination = local(copy.destination);
    return copy;
  };
  return {
    ...(Array.isArray(value.syncs) ? { syncs: value.syncs.map(rename) } : {}),
    ...(Array.isArray(value.exports) ? { exports: value.exports.map(rename) } : {}),
  };
}

function writeProject(dir: string, includes: Json[], root: Json = {}): void {
  mkdirSync(dir, { recursive: true });
  const include = ['examples/*.yaml', ...((root.include as string[] | undefined) ?? [])];
  writeFileSync(
    join(dir, 'ferry.yaml'),
    stringify({ version: 1, service: { baseUrl: 'embedded' }, state: { url: 'sqlite:state/ferry.db' }, emulator: { db: 'state/emulator.db' }, ...root, include }),
  );
  mkdirSync(join(dir, 'examples'), { recursive: true });
  includes.forEach((content, i) => writeFileSync(join(dir, 'examples', `${String(i).padStart(3, '0')}.yaml`), stringify(content)));
}

const runnable = examples.filter((example) => kindOf(example) === 'runnable' && !notRunnable(example));
const fragments = examples.filter((example) => kindOf(example) === 'fragment' && !notRunnable(example));

beforeAll(async () => {
  api = createServer((request, response) => {
    const token = request.url?.startsWith('/token') === true;
    response.writeHead(200, { 'content-type': 'application/json' }).end(token ? '{"access_token":"t","token_type":"bearer","expires_in":3600}' : '[]');
  });
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  project = tempProjectDir('ferry-docs-examples-');
  fixtureTree(join(project, 'examples'));
  symlinkSync(DATASETS, join(project, 'datasets'));
});
afterAll(async () => {
  await new Promise((done) => api.close(done));
  if (!process.env.KEEP) rmSync(project, { recursive: true, force: true });
  await dropSchemas(pgSchema).catch(() => undefined);
});

describe('YAML examples in README.md and docs/', () => {
  it('are found, parse, and every one that cannot run says why', () => {
    expect(examples.length).toBeGreaterThan(40);
    const broken = examples.filter((example) => example.parseError && !notRunnable(example)).map((example) => `${example.where}: ${example.parseError}`);
    expect(broken).toEqual([]);
    // An entry that no longer matches a block is stale: remove it.
    const stale = NOT_RUNNABLE.filter((entry) => !examples.some((example) => example.file === entry.file && example.text.includes(entry.contains)));
    expect(stale).toEqual([]);
    expect(NOT_RUNNABLE.length).toBeLessThanOrEqual(12);
  });

  it('whole syncs land every record they read in the embedded emulator (one ferry run)', async () => {
    const names = new Map<string, string>();
    const contents = runnable.map((example, i) => {
      const value = Array.isArray(example.value) ? { syncs: example.value } : (example.value as Json);
      const content = placed(example, i, value);
      for (const sync of (content.syncs as Json[] | undefined) ?? []) names.set(String(sync.name), example.where);
      return content;
    });
    expect(contents.length).toBeGreaterThan(3);
    writeProject(project, contents);
    const result = await ferry(['run', '--json'], { cwd: project, env: ferryEnv() });
    const syncs = (jsonOf(result) as { syncs: { sync: string; status: string; counts: Record<string, number>; error?: unknown }[] }).syncs;
    const problems = syncs
      .filter((run) => run.status !== 'succeeded' || run.counts.read === 0 || run.counts.failed !== 0)
      .map((run) => `${names.get(run.sync) ?? run.sync}: ${run.status}, ${JSON.stringify(run.counts)} ${JSON.stringify(run.error ?? '')}`);
    expect(problems, result.stderr.slice(-4000)).toEqual([]);
    expect(syncs.map((run) => run.sync).sort()).toEqual([...names.keys()].sort());

    // The exports among them read back what the syncs pushed.
    const exported = await ferry(['export', '--json'], { cwd: project, env: ferryEnv() });
    expect(exported.code, exported.stderr.slice(-4000)).toBe(0);
  });

  it('fragments are valid configuration in a skeleton sync or export (one ferry check)', async () => {
    // Also beside the fixture tree, so ferry check reaches the files they name.
    const dir = join(project, 'fragments');
    const where = new Map<string, string>();
    const syncs: Json[] = [];
    const exportsList: Json[] = [];
    const root: Json = {};
    fragments.forEach((example, i) => {
      const name = `frag${i}`;
      where.set(name, example.where);
      if (isObject(example.value) && Object.keys(example.value).every((key) => ['state', 'metrics', 'notify', 'include', 'service'].includes(key))) {
        // Keys of the project file itself: they join the fragments' ferry.yaml.
        for (const [key, part] of Object.entries(example.value)) {
          expect(root[key], `${example.where}: another fragment already set ${key}`).toBeUndefined();
          root[key] = part;
        }
        return;
      }
      const built = skeleton(name, example.value);
      if (built.kind === 'sync') syncs.push({ ...built.value, source: local(built.value.source) });
      else exportsList.push({ ...built.value, destination: local(built.value.destination) });
    });
    writeProject(dir, [{ syncs, exports: exportsList }], root);
    // Plain paths an `include:` fragment names exist (empty) beside it.
    for (const pattern of (root.include as string[] | undefined) ?? []) {
      if (/[*?[{]/.test(pattern)) continue;
      mkdirSync(dirname(join(dir, pattern)), { recursive: true });
      writeFileSync(join(dir, pattern), 'syncs: []\n');
    }
    fixtureTree(join(dir, 'examples'));
    const result = await ferry(['check', '--json'], { cwd: dir, env: ferryEnv() });
    const items = (jsonOf(result) as { items: { kind: string; name: string; ok: boolean; message: string; issues?: { path: string; message: string }[] }[] }).items;
    const config = items.find((item) => item.kind === 'config');
    expect(config?.ok, JSON.stringify(config?.issues ?? config, null, 1)).toBe(true);
    const invalid = items
      .filter((item) => (item.kind === 'sync' || item.kind === 'export') && !item.ok && item.issues)
      .map((item) => `${where.get(item.name) ?? item.name}: ${JSON.stringify(item.issues)}`);
    expect(invalid).toEqual([]);
    expect(items.filter((item) => item.kind === 'sync' || item.kind === 'export').length).toBe(syncs.length + exportsList.length);
  });
});

const BASE_SOURCES: Record<string, Json> = {
  csv: { path: 'data/sales_pipeline.csv' },
  http: { path: '/items' },
};
const HTTP_KEYS = new Set(['pagination', 'auth', 'incremental', 'recordSelector', 'params', 'headers']);
const SQL_KEYS = new Set(['ssl']);

/** An http source pointed at the local API (and its token endpoint) instead of a third party's. */
function standIn(source: Json): Json {
  const auth = isObject(source.auth) && source.auth.type === 'oauth2' ? { ...source.auth, tokenUrl: `${apiUrl}/token` } : source.auth;
  return { ...source, baseUrl: apiUrl, ...(auth === undefined ? {} : { auth }) };
}

/** The target type a `map:` fragment is written for, from the fields it sets. */
function targetFor(map: Json): Json {
  if ('transcript' in map || 'participants' in map) return { type: 'conversation', source: { name: 'docs' } };
  if ('body' in map || 'sender' in map) return { type: 'message', source: { name: 'docs' } };
  if ('content' in map || 'url' in map || 'filename' in map) return { type: 'document', source: { name: 'docs' } };
  return { type: 'row', source: { name: 'docs' }, objectType: { name: 'docs' } };
}

/** A whole sync (or export) around a fragment. */
function skeleton(name: string, value: unknown): { kind: 'sync' | 'export'; value: Json } {
  const fragment = isObject(value) ? value : {};
  if ('destination' in fragment) return { kind: 'export', value: { name, resource: 'deals', destination: fragment.destination } };
  const base: Json = {
    name,
    source: { type: 'csv', ...BASE_SOURCES.csv, primaryKey: 'opportunity_id' },
    target: { type: 'row', source: { name: 'docs' }, objectType: { name: 'docs' }, map: { id: 'opportunity_id', fields: { stage: 'deal_stage' } } },
  };
  const keys = Object.keys(fragment);
  if (keys.length > 0 && keys.every((key) => HTTP_KEYS.has(key)) && !('cursor' in ((fragment.incremental as Json | undefined) ?? {}))) {
    return { kind: 'sync', value: { ...base, source: standIn({ type: 'http', ...BASE_SOURCES.http, ...fragment }) } };
  }
  if (keys.length > 0 && keys.every((key) => SQL_KEYS.has(key))) {
    return { kind: 'sync', value: { ...base, source: { type: 'postgres', url: PG_URL, table: 'deals', ...fragment } } };
  }
  const sync: Json = { ...base };
  for (const [key, part] of Object.entries(fragment)) {
    if (key === 'source' && isObject(part)) {
      sync.source = { ...('streams' in part ? {} : (BASE_SOURCES[String(part.type)] ?? {})), ...part };
      // Third-party APIs are stood in for by the local one.
      if (part.type === 'http') sync.source = standIn(sync.source as Json);
    }
    else if (key === 'map' && isObject(part)) sync.target = { ...targetFor(part), map: part };
    else sync[key] = part;
  }
  if ('group' in fragment && isObject(sync.target) && sync.target.type === 'row') {
    sync.target = { type: 'conversation', source: { name: 'docs' }, map: { id: 'key', public: true, participants: '[{"id": "a"}]', transcript: '[records.{"speakerId": "a", "text": "hi", "timestamp": 1591056787005}]' } };
  }
  return { kind: 'sync', value: sync };
}

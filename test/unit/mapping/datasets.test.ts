/**
 * End-to-end mapping of real records from /work/shared/datasets: what a
 * connector yields → group → map → build, as the runner does it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { FieldTypeSampler, buildRequest, compileMapping, fingerprint, groupRecords } from '../../../src/mapping/index.js';
import type { CompiledMapping } from '../../../src/mapping/index.js';
import type { MapSpec } from '../../../src/config/schema.js';
import type { FieldType, SourceData, SourceRecord } from '../../../src/sdk/types.js';

const DATASETS = '/work/shared/datasets';
const SOURCE_ID = '6f1f7c1e-8d7e-4d5a-9f44-0d2f3f6b2a10';
const OBJECT_TYPE_ID = '0b8e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b';

function compile(spec: MapSpec): CompiledMapping {
  const result = compileMapping(spec);
  if ('errors' in result) throw new Error(JSON.stringify(result.errors));
  return result.mapping;
}

async function* from<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('Harper Valley calls → conversations (group by call)', () => {
  const dir = join(DATASETS, 'harper-valley-calls/data/transcript');
  // What a JSON-files connector yields: one record per segment, tagged with its call id.
  const records: SourceRecord[] = readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const segments = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, SourceData[keyof SourceData]>[];
      return segments.map((segment, i) => ({ data: { ...segment, sid: basename(name, '.json') }, origin: { file: name, line: i + 1 } }));
    });

  const mapping = compile({
    id: 'key',
    public: true,
    displayName: '"Harper Valley call " & key',
    createdAt: '$min(records.start_timestamp_ms)',
    startedAt: '$min(records.start_timestamp_ms)',
    endedAt: '$max(records.(start_timestamp_ms + duration_ms))',
    participants: '$distinct(records.speaker_role).{ "id": $, "name": $ }',
    transcript: 'records.{ "speakerName": speaker_role, "text": human_transcript, "timestamp": start_timestamp_ms }',
  });

  it('folds each call into one valid conversation with its whole transcript', async () => {
    const groups = await collect(groupRecords(from(records), 'sid'));
    expect(groups.map((g) => g.key)).toEqual(['0002f70f7386445b', '004860b1ab2e4c88', '0091a706bc604188', '00d676d7058c49bb', '00f7dce6fc3849a2', '010d38f5ada54e0d']);
    expect(groups.map((g) => g.records.length)).toEqual([18, 18, 17, 16, 9, 8]);
    expect(groups[0]?.origin).toEqual({ file: '0002f70f7386445b.json', line: 1, lineEnd: 18 });

    for (const group of groups) {
      const mapped = await mapping.evaluate({ key: group.key, records: group.records });
      const built = buildRequest('conversation', mapped, { sourceId: SOURCE_ID });
      expect(built.ok, built.ok ? '' : built.reason).toBe(true);
      if (!built.ok) continue;
      const body = built.body as { transcript: { timestamp: string; speakerName: string }[]; participants: unknown[]; startedAt: string; endedAt: string };
      expect(built.remoteId).toBe(group.key);
      expect(body.transcript).toHaveLength(group.records.length);
      expect(body.participants).toHaveLength(2);
      expect(body.participants).toEqual(expect.arrayContaining([{ id: 'agent', name: 'agent' }, { id: 'caller', name: 'caller' }]));
      expect(body.startedAt).toMatch(/^2020-0[56]-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(body.endedAt)).toBeGreaterThan(Date.parse(body.startedAt));
    }
    const first = await mapping.evaluate({ key: groups[0]!.key, records: groups[0]!.records });
    const built = buildRequest('conversation', first, { sourceId: SOURCE_ID });
    expect(built.ok && (built.body.transcript as unknown[])[0]).toEqual({
      speakerName: 'agent',
      text: 'hello this is harper valley national bank',
      timestamp: new Date(1591056787005).toISOString(),
    });
  });

  it('names the sentence that lies outside the conversation window', async () => {
    const groups = await collect(groupRecords(from(records), 'sid'));
    const group = groups[4]!;
    // A start declared too late: sentences before it fall outside [startedAt, endedAt].
    const late = compile({ ...{ id: 'key', public: true, participants: '[{"id": "agent"}]' }, startedAt: '$max(records.start_timestamp_ms)', createdAt: '0', transcript: 'records.{ "speakerName": speaker_role, "text": transcript, "timestamp": start_timestamp_ms }' });
    const built = buildRequest('conversation', await late.evaluate({ key: group.key, records: group.records }), { sourceId: SOURCE_ID });
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.field).toBe('transcript.0.timestamp');
    expect(built.reason).toMatch(/^transcript\.0\.timestamp: sentence timestamp 2020-\S+ lies outside the conversation window \[/);
    expect(built.reason.split('; ')).toHaveLength(group.records.length - 1);
  });
});

describe('CRM sales pipeline → rows', () => {
  const rows = parse<Record<string, string>>(readFileSync(join(DATASETS, 'crm-sales-opportunities/sales_pipeline.csv')), { columns: true });
  const mapping = compile({
    id: 'opportunity_id',
    name: 'opportunity_id & " " & product',
    public: true,
    fields: { agent: 'sales_agent', product: 'product', account: 'account', stage: 'deal_stage', engaged: 'engage_date', closed: 'close_date', value: 'close_value' },
  });

  it('infers field types from the data and omits blank cells', async () => {
    const mapped = await Promise.all(rows.slice(0, 2000).map((row) => mapping.evaluate(row)));
    const sampler = new FieldTypeSampler();
    for (const m of mapped) for (const [field, value] of Object.entries(m.fields as object)) sampler.observe(field, value);
    const fieldTypes = sampler.types();
    expect(Object.fromEntries(fieldTypes)).toEqual({ agent: 'string', product: 'string', account: 'string', stage: 'string', engaged: 'date', closed: 'date', value: 'int' });

    const ctx = { sourceId: SOURCE_ID, objectTypeId: OBJECT_TYPE_ID, fieldTypes };
    const built = mapped.map((m) => buildRequest('row', m, ctx));
    expect(built.filter((b) => !b.ok)).toEqual([]);
    const won = built[0];
    expect(won?.ok && won.body.fields).toEqual({
      agent: { value: 'Moses Frase', fieldType: 'string' },
      product: { value: 'GTX Plus Basic', fieldType: 'string' },
      account: { value: 'Cancity', fieldType: 'string' },
      stage: { value: 'Won', fieldType: 'string' },
      engaged: { value: '2016-10-20', fieldType: 'date' },
      closed: { value: '2017-03-01', fieldType: 'date' },
      value: { value: 1054, fieldType: 'int' },
    });
    const openIndex = rows.findIndex((r) => r.deal_stage === 'Prospecting' && r.account === '');
    const open = buildRequest('row', await mapping.evaluate(rows[openIndex]), ctx);
    expect(open.ok && Object.keys(open.body.fields as object).sort()).toEqual(['agent', 'product', 'stage']);
  });

  it('coerces to declared types and refuses what does not fit', async () => {
    const declared = new Map<string, FieldType>([['value', 'double'], ['closed', 'datetime'], ['stage', 'boolean']]);
    const ctx = { sourceId: SOURCE_ID, objectTypeId: OBJECT_TYPE_ID, fieldTypes: declared, fieldLabels: new Map([['value', 'Close value']]) };
    const built = buildRequest('row', await mapping.evaluate(rows[0]), ctx);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.reason).toBe('fields.stage: expected boolean, found "Won"');
    expect(built.partialBody?.fields).toEqual({
      value: { value: 1054, fieldType: 'double', label: 'Close value' },
      closed: { value: '2017-03-01T00:00:00.000Z', fieldType: 'datetime' },
    });
  });

  it('fingerprints stay put across runs and move when a cell changes', async () => {
    const fieldTypes = new Map<string, FieldType>([['stage', 'string'], ['value', 'int']]);
    const ctx = { sourceId: SOURCE_ID, objectTypeId: OBJECT_TYPE_ID, fieldTypes };
    const print = async (row: Record<string, string>) => {
      const built = buildRequest('row', await mapping.evaluate(row), ctx);
      if (!built.ok) throw new Error(built.reason);
      return fingerprint(built.body);
    };
    const row = rows[0]!;
    expect(await print({ ...row })).toBe(await print(Object.fromEntries(Object.entries(row).reverse())));
    expect(await print({ ...row, close_value: '1055' })).not.toBe(await print(row));
  });
});

describe('Enron e-mail → message', () => {
  // The first message of a real mbox, headers read the simple way an mbox connector would.
  const mbox = readFileSync(join(DATASETS, 'enron-mbox/enron.allen-p.straw'), 'latin1');
  const raw = mbox.split(/\nFrom MAILER-DAEMON .*\n/)[0]!.replace(/^From MAILER-DAEMON .*\n/, '');
  const [head, ...bodyParts] = raw.split('\n\n');
  const headers = Object.fromEntries(
    head!.split('\n').map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const record = { ...headers, body: bodyParts.join('\n\n') };

  it('maps headers to a valid message', async () => {
    const mapping = compile({
      id: '`message-id`',
      createdAt: 'date',
      displayName: 'subject',
      body: 'body',
      threadId: '$replace(subject, /^(re|fw|fwd):\\s*/i, "")',
      sender: { email: 'from', name: '`x-from`' },
      recipients: '$split(to, ",").$trim($)',
      ownerEmails: ['pallen@enron.com'],
    });
    const built = buildRequest('message', await mapping.evaluate(record), { sourceId: SOURCE_ID });
    expect(built.ok, built.ok ? '' : built.reason).toBe(true);
    if (!built.ok) return;
    expect(built.body).toMatchObject({
      id: '<2055670.1075855692881.JavaMail.evans@thyme>',
      createdAt: '2000-02-10T09:46:00.000Z',
      displayName: 'Re: Newsgroups',
      threadId: 'Newsgroups',
      sender: { email: 'billc@greenbuilder.com', name: 'billc@greenbuilder.com' },
      recipients: [{ email: 'strawbale@crest.org' }],
      ownerEmails: ['pallen@enron.com'],
    });
    expect(built.body.body).toContain('We have a list of our favorites');
  });
});

describe('18F handbook page → document', () => {
  const path = 'pages/travel-and-leave/travel-and-leave-policies/travel-guide-faq.md';
  const bytes = readFileSync(join(DATASETS, 'documents/18f-handbook', path));

  it('uploads the file bytes as base64, titled from the front matter', async () => {
    const mapping = compile({
      id: 'path',
      displayName: '$match($base64decode(content), /^title:\\s*(.+)$/m).groups[0]',
      filename: '$split(path, "/")[-1]',
      content: 'content',
      contentType: '"text/markdown"',
      public: true,
    });
    const built = buildRequest('document', await mapping.evaluate({ path, content: bytes }), { sourceId: SOURCE_ID });
    expect(built.ok, built.ok ? '' : built.reason).toBe(true);
    if (!built.ok) return;
    expect(built.body.filename).toBe('travel-guide-faq.md');
    expect(built.body.displayName).toBe('Frequently Asked Questions');
    expect(Buffer.from(built.body.content as string, 'base64').equals(bytes)).toBe(true);
  });
});

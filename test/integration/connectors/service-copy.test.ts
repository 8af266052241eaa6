/**
 * The `service` source end to end: two emulators stand for two organizations
 * (A and B). Rows of one object type in A become rows of another object type
 * in B, and conversations with their transcripts are copied, all through
 * runProject exactly as `ferry run` would do it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import { dealObjectType, dealRow, harperValleyConversation, CALL } from '../../unit/api/fixtures.js';

const CONFIG = `version: 1
service:
  baseUrl: \${SVC_COPY_B_URL}
  apiKey: \${SVC_COPY_B_KEY}
  maxRequestsPerSecond: 2000
state:
  url: sqlite:state/ferry.db
syncs:
  - name: copy-deals
    source:
      type: service
      baseUrl: \${SVC_COPY_A_URL}
      apiKey: \${SVC_COPY_A_KEY}
      resource: rows
      filters:
        objectTypeId: \${SVC_COPY_A_TYPE}
      pageSize: 7
    incremental: { cursor: createdAt }
    target:
      type: row
      source: { name: copied, displayName: Copied from A }
      objectType:
        name: opportunity
        displayName: Opportunity
        fields:
          agent: string
          stage: string
          value_cents: int
          origin_row: string
      map:
        id: remoteId
        name: $uppercase(name)
        public: true
        createdAt: createdAt
        fields:
          agent: fields.sales_agent.value
          stage: fields.deal_stage.value
          value_cents: fields.close_value.value * 100
          origin_row: rowId

  - name: copy-calls
    source:
      type: service
      baseUrl: \${SVC_COPY_A_URL}
      apiKey: \${SVC_COPY_A_KEY}
      resource: conversations
      details: true
    target:
      type: conversation
      source: { name: copied, displayName: Copied from A }
      map:
        id: conversationId
        public: true
        displayName: '"Copy of " & title'
        createdAt: startTime
        startedAt: startTime
        endedAt: endTime
        participants: 'participants.{ "id": name, "name": name }'
        transcript: '($start := $toMillis(startTime); transcript.{ "speakerName": speaker, "text": text, "timestamp": $round($start + startTime * 1000) })'
`;

describe('service source: organization A → organization B', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  let clientA: ServiceClient;
  let clientB: ServiceClient;
  let sourceA = '';
  let typeA = '';
  let configFile = '';
  const logger = pino({ level: 'silent' });

  const addDeals = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const row = dealRow(i % 2);
      await clientA.createRow({
        ...row,
        id: `deal-${String(i).padStart(3, '0')}`,
        name: `${String(row.name)} #${i}`,
        sourceId: sourceA,
        objectTypeId: typeA,
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
      });
    }
  };

  const rowsInB = async () => {
    const source = (await clientB.listSources({ name: 'copied' })).sources[0];
    const type = (await clientB.listObjectTypes({ sourceId: source!.id })).objectTypes.find((t) => t.name === 'opportunity');
    const rows = [];
    for await (const row of clientB.iterateRows({ objectTypeId: type!.id })) rows.push(row);
    return rows;
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([startEmulator({ db: ':memory:' }), startEmulator({ db: ':memory:' })]);
    clientA = new ServiceClient({ baseUrl: a.url, apiKey: a.devKey });
    clientB = new ServiceClient({ baseUrl: b.url, apiKey: b.devKey });
    sourceA = (await clientA.createSource({ name: 'crm', displayName: 'CRM' })).id;
    typeA = (await clientA.createObjectType({ ...dealObjectType(), sourceId: sourceA })).id;
    // A second object type whose rows must not be copied.
    const otherType = (await clientA.createObjectType({ ...dealObjectType(), name: 'other', sourceId: sourceA })).id;
    await clientA.createRow({ ...dealRow(0), id: 'not-me', sourceId: sourceA, objectTypeId: otherType });
    await addDeals(0, 23);
    await clientA.createConversation({ ...harperValleyConversation(), sourceId: sourceA });

    const dir = mkdtempSync(join(tmpdir(), 'ferry-service-copy-'));
    configFile = join(dir, 'ferry.yaml');
    writeFileSync(configFile, CONFIG);
    Object.assign(process.env, {
      SVC_COPY_A_URL: a.url,
      SVC_COPY_A_KEY: a.devKey,
      SVC_COPY_A_TYPE: typeA,
      SVC_COPY_B_URL: b.url,
      SVC_COPY_B_KEY: b.devKey,
    });
  });

  afterAll(async () => {
    await Promise.all([clientA.close(), clientB.close()]);
    await Promise.all([a.close(), b.close()]);
  });

  it('copies every row of object type X into object type Y with transformed fields, and a re-run pushes nothing', async () => {
    const [first] = await runProject({ configFile, syncNames: ['copy-deals'], logger });
    expect(first).toMatchObject({ status: 'succeeded', counts: { read: 23, created: 23, failed: 0 } });

    const rows = await rowsInB();
    expect(rows).toHaveLength(23);
    const byId = new Map(rows.map((row) => [row.remoteId, row]));
    const sourceRows = new Map<string, { rowId: string; name: string }>();
    for await (const row of clientA.iterateRows({ objectTypeId: typeA })) sourceRows.set(row.remoteId, row);
    for (const [remoteId, original] of sourceRows) {
      const copy = byId.get(remoteId);
      expect(copy?.name).toBe(original.name.toUpperCase());
      expect(copy?.objectTypeName).toBe('opportunity');
      expect(copy?.fields.origin_row?.value).toBe(original.rowId);
    }
    expect(byId.get('deal-000')?.fields).toMatchObject({
      agent: { value: 'Moses Frase', fieldType: 'string' },
      stage: { value: 'Won' },
      value_cents: { value: 105400, fieldType: 'int' },
    });
    expect(byId.get('deal-001')?.fields.value_cents?.value).toBe(0);
    expect(byId.has('not-me')).toBe(false);

    const [again] = await runProject({ configFile, syncNames: ['copy-deals'], logger });
    expect(again).toMatchObject({ status: 'succeeded', counts: { pushed: 0, created: 0, updated: 0, failed: 0 } });

    await addDeals(23, 25);
    const [third] = await runProject({ configFile, syncNames: ['copy-deals'], logger });
    expect(third).toMatchObject({ status: 'succeeded', counts: { read: 2, created: 2 } });
    expect(await rowsInB()).toHaveLength(25);
  });

  it('copies conversations with their transcripts fetched from the detail endpoint', async () => {
    const [summary] = await runProject({ configFile, syncNames: ['copy-calls'], logger });
    expect(summary).toMatchObject({ status: 'succeeded', counts: { read: 1, created: 1, failed: 0 } });
    const [listed] = (await clientB.listConversations({ limit: 5 })).conversations;
    expect(listed?.title).toBe('Copy of Harper Valley National Bank: check balance (savings)');
    const copy = await clientB.getConversation(listed!.conversationId);
    expect(copy.transcript?.map((entry) => entry.text)).toEqual(CALL.segments.map((s) => s.text));
    expect(new Date(copy.startTime).getTime()).toBe(CALL.startMs);
    const [rerun] = await runProject({ configFile, syncNames: ['copy-calls'], logger });
    expect(rerun).toMatchObject({ counts: { read: 1, unchanged: 1, pushed: 0 } });
  });
});

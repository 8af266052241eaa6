import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { T0, apiFor, conversation, createObjectType, createSource, message, row, type Api } from './helpers.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';

async function collect(api: Api, path: string, key: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    pages++;
    for (const item of res.body[key]) ids.push(item.conversationId ?? item.messageId ?? item.rowId ?? item.id);
    if (!res.body.pagination.hasMore) {
      expect(res.body.pagination.nextCursor).toBeNull();
      break;
    }
    expect(typeof res.body.pagination.nextCursor).toBe('string');
    cursor = res.body.pagination.nextCursor;
    if (pages > 100) throw new Error('runaway pagination');
  }
  return { ids, pages };
}

describe('emulator: lists, filters, pagination and isolation', () => {
  let emu: RunningEmulator;
  let a: Api;
  let b: Api;
  let sourceId: string;
  const orgA = randomUUID();
  const orgB = randomUUID();
  const expected = { all: new Set<string>(), internal: new Set<string>() };

  beforeAll(async () => {
    emu = await startEmulator({ keys: { sk_live_a: { orgId: orgA, scopes: ['read', 'ingest'] }, sk_live_b: { orgId: orgB, scopes: ['read', 'ingest'] } } });
    a = apiFor(emu, 'sk_live_a');
    b = apiFor(emu, 'sk_live_b');
    sourceId = await createSource(a, 'bulk');
    // 130 conversations; several share a start time so ties are broken by id.
    for (let i = 0; i < 130; i++) {
      const start = T0 + Math.floor(i / 3) * 60_000;
      const internal = i % 4 === 0;
      const res = await a.post(
        '/v1/conversations',
        conversation(sourceId, `bulk-${i}`, {
          startedAt: start,
          createdAt: start,
          displayName: i % 5 === 0 ? `Quarterly REVIEW ${i}` : `Sync ${i}`,
          participants: internal ? [{ name: 'Zed Internal', email: 'zed@acme.com' }, { email: 'amy@acme.com' }] : [{ name: 'Ann Lee', email: 'ann@acme.com' }, { name: 'Carl Buyer', email: 'carl@initech.io' }],
          transcript: [{ speakerName: 'x', text: 'hello', timestamp: start + 1000 }],
        }),
      );
      expect(res.status).toBe(201);
      expected.all.add(res.body.recordId);
      if (internal) expected.internal.add(res.body.recordId);
    }
  });
  afterAll(() => emu.close());

  it('pages through >100 records with no duplicates and no gaps', async () => {
    const { ids, pages } = await collect(a, `/v1/conversations?limit=7&sourceId=${sourceId}`, 'conversations');
    expect(pages).toBe(Math.ceil(130 / 7));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(expected.all);
  });

  it('orders newest first', async () => {
    const res = await a.get(`/v1/conversations?limit=50`);
    const starts = res.body.conversations.map((c: { startTime: string }) => Date.parse(c.startTime));
    expect(starts).toEqual([...starts].sort((x, y) => y - x));
    expect(res.body.conversations).toHaveLength(50);
    expect((await a.get('/v1/conversations')).body.conversations).toHaveLength(20);
  });

  it('pages with filters applied', async () => {
    const { ids } = await collect(a, '/v1/conversations?limit=5&type=INTERNAL', 'conversations');
    expect(new Set(ids)).toEqual(expected.internal);
    const reviews = await collect(a, '/v1/conversations?limit=4&title=review', 'conversations');
    expect(reviews.ids).toHaveLength(26);
  });

  it('filters conversations by attendees, time, source and type', async () => {
    const count = async (q: string) => (await collect(a, `/v1/conversations?limit=50&${q}`, 'conversations')).ids.length;
    expect(await count('attendees=zed')).toBe(expected.internal.size);
    expect(await count('attendees=carl@initech.io')).toBe(130 - expected.internal.size);
    expect(await count('attendees=initech.io')).toBe(130 - expected.internal.size);
    expect(await count('attendees=acme.com')).toBe(130);
    expect(await count('attendees=ca')).toBe(130 - expected.internal.size);
    expect(await count(`startedAfter=${new Date(T0 + 40 * 60_000).toISOString()}`)).toBe(130 - 120);
    expect(await count(`startedBefore=${new Date(T0).toISOString()}`)).toBe(3);
    expect(await count('sourceId=gong')).toBe(0);
    expect(await count('type=EXTERNAL')).toBe(130 - expected.internal.size);
    expect(await count('crmName=acme')).toBe(0);
  });

  it('validates list query parameters with 422', async () => {
    for (const q of ['limit=0', 'limit=51', 'limit=abc', 'type=BOTH', 'startedAfter=yesterday']) {
      const res = await a.get(`/v1/conversations?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', q.split('=')[0]] });
      expect(typeof res.body.detail[0].msg).toBe('string');
      expect(typeof res.body.detail[0].type).toBe('string');
    }
    expect((await a.get('/v1/messages?limit=51')).status).toBe(422);
    expect((await a.get('/v1/deals?limit=0')).status).toBe(422);
    expect((await a.get('/v1/deals?closed=maybe')).status).toBe(422);
    expect((await a.get('/v1/conversations?limit=50')).status).toBe(200);
  });

  it('refuses invalid cursors and cursors of another list', async () => {
    const res = await a.get('/v1/conversations?cursor=not-a-cursor');
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'cursor']);
    const page = await a.get('/v1/conversations?limit=1');
    const foreign = await a.get(`/v1/messages?cursor=${page.body.pagination.nextCursor}`);
    expect(foreign.status).toBe(422);
  });

  it('isolates organizations', async () => {
    expect((await b.get('/v1/conversations')).body.conversations).toEqual([]);
    expect((await b.get('/v1/sources')).body.sources).toEqual([]);
    const some = [...expected.all][0];
    expect((await b.get(`/v1/conversations/${some}`)).status).toBe(404);
    expect((await b.get(`/v1/sources/${sourceId}`)).status).toBe(404);
    // B cannot push into A's source, nor change or delete A's records.
    const push = await b.post('/v1/conversations', conversation(sourceId, 'intruder'));
    expect(push.status).toBe(400);
    expect(push.body.detail.field).toBe('sourceId');
    const typeId = await createObjectType(a, sourceId);
    await a.post('/v1/rows', row(sourceId, typeId, 'mine'));
    const patch = await b.patch(`/v1/rows?remoteId=mine&sourceId=${sourceId}`, { name: 'stolen' });
    expect(patch.status).toBe(403);
    expect(patch.body.detail.error).toBe('forbidden');
    expect((await b.del(`/v1/rows?remoteId=mine&sourceId=${sourceId}`)).status).toBe(403);
    expect((await b.get(`/v1/object-types/${typeId}`)).status).toBe(404);
    expect((await b.post('/v1/rows', row(sourceId, typeId, 'x'))).status).toBe(400);
    // The same source name can exist in both organizations.
    expect((await b.post('/v1/sources', { name: 'bulk', displayName: 'B' })).status).toBe(201);
  });

  it('filters messages by thread, participant and time', async () => {
    const s = await createSource(a, 'mail');
    await a.post('/v1/messages', message(s, 'm1', { threadId: 't1', createdAt: T0 }));
    await a.post('/v1/messages', message(s, 'm2', { threadId: 't1', createdAt: T0 + 1000, sender: { email: 'zoe@x.com' }, recipients: [{ email: 'ann@acme.com' }] }));
    await a.post('/v1/messages', message(s, 'm3', { threadId: 't2', createdAt: T0 + 2000, sender: { email: 'zoe@x.com' }, recipients: [{ email: 'pat@y.com' }] }));
    const ids = async (q: string) => ((await a.get(`/v1/messages?sourceId=${s}&${q}`)).body.messages as { remoteId: string }[]).map((m) => m.remoteId);
    expect(await ids('threadId=t1')).toEqual(['m2', 'm1']);
    expect(await ids('participantEmail=ANN@acme.com')).toEqual(['m2', 'm1']);
    expect(await ids('participantEmail=pat@y.com')).toEqual(['m3']);
    expect(await ids(`createdAfter=${new Date(T0 + 500).toISOString()}&createdBefore=${new Date(T0 + 1500).toISOString()}`)).toEqual(['m2']);
    const page = await collect(a, `/v1/messages?sourceId=${s}&limit=1`, 'messages');
    expect(page.ids).toHaveLength(3);
  });
});

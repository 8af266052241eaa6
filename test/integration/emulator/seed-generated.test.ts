import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_OPTIONS, generateSeed } from '../../../src/emulator/index.js';
import type { SeedDatasetInput, SeedDealInput } from '../../../src/emulator/seed/format.js';
import { startApi, type Api } from './helpers.js';

/** The demo seed (2,000 sampled deals, everything else whole) served by one emulator for all tests here. */
const seed: SeedDatasetInput = generateSeed(DEMO_OPTIONS);
const deals = seed.deals ?? [];
const accounts = seed.accounts ?? [];
const ms = (v: unknown) => Date.parse(String(v));

/** The deals list's order: newest createdDate first, ties by id descending. */
const byCreated = (a: SeedDealInput, b: SeedDealInput) => ms(b.createdDate) - ms(a.createdDate) || (a.dealId < b.dealId ? 1 : -1);

describe('emulator serving the generated demo seed', () => {
  let api: Api;
  const ids = async (path: string, items: string, id: string): Promise<string[]> =>
    ((await api.get(path)).body[items] as Record<string, string>[]).map((x) => x[id] as string);
  /** Every item of a list, following cursors. */
  const walk = async (path: string, items: string): Promise<Record<string, unknown>[]> => {
    const all: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await api.get(`${path}${sep}limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      all.push(...(res.body[items] as Record<string, unknown>[]));
      if (!res.body.pagination.hasMore) return all;
      cursor = res.body.pagination.nextCursor as string;
    }
  };

  beforeAll(async () => {
    api = await startApi({ seed });
  });
  afterAll(async () => {
    await api.emulator.close();
  });

  it('pages with the spec defaults: 20 for deals, accounts and conversations; 50 for messages and documents', async () => {
    for (const [path, key, size] of [
      ['/v1/deals', 'deals', 20],
      ['/v1/accounts', 'accounts', 20],
      ['/v1/conversations', 'conversations', 20],
      ['/v1/messages', 'messages', 50],
    ] as const) {
      const res = await api.get(path);
      expect(res.body[key], path).toHaveLength(size);
      expect(res.body.pagination.hasMore, path).toBe(true);
    }
    const docs = await api.get('/v1/documents');
    expect(docs.body.documents).toHaveLength(38);
    expect(docs.body.pagination.hasMore).toBe(false);
    const all = await walk('/v1/deals', 'deals');
    expect(new Set(all.map((d) => d.dealId)).size).toBe(2000);
    expect(all.slice(0, 50).map((d) => d.dealId)).toEqual([...deals].sort(byCreated).slice(0, 50).map((d) => d.dealId));
  });

  it('filters deals by every parameter of the spec', async () => {
    const expectFirst = async (query: string, keep: (d: SeedDealInput) => boolean) => {
      const expected = deals.filter(keep).sort(byCreated).slice(0, 50).map((d) => d.dealId);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(await ids(`/v1/deals?limit=50&${query}`, 'deals', 'dealId'), query).toEqual(expected);
    };
    await expectFirst('name=ACME', (d) => !!d.name?.toLowerCase().includes('acme'));
    await expectFirst('stage=prosp', (d) => d.stage === 'Prospecting');
    await expectFirst('closed=false', (d) => d.closed === false);
    await expectFirst('closed=true&stage=lost', (d) => d.stage === 'Lost');
    await expectFirst('owner=darcel', (d) => d.owner?.name === 'Darcel Schlecht');
    await expectFirst('closeDateAfter=2017-06-01T00:00:00Z&closeDateBefore=2017-06-30T00:00:00Z', (d) => ms(d.closeDate) >= ms('2017-06-01') && ms(d.closeDate) <= ms('2017-06-30'));
    await expectFirst('amountMin=5000&amountMax=6000', (d) => d.amount != null && d.amount >= 5000 && d.amount <= 6000);
    await expectFirst('lastActivityAfter=2017-12-01T00:00:00Z', (d) => ms(d.lastActivityDate) >= ms('2017-12-01'));
    await expectFirst('lastActivityBefore=2017-03-01T00:00:00Z', (d) => ms(d.lastActivityDate) <= ms('2017-03-01'));
    // Open deals have no amount and never match amount bounds.
    expect(await ids('/v1/deals?closed=false&amountMin=0', 'deals', 'dealId')).toEqual([]);
    const detail = await api.get(`/v1/deals/${deals[0]?.dealId ?? ''}`);
    expect(detail.body).toMatchObject({ dealId: deals[0]?.dealId, pipeline: 'Sales', summary: { headline: expect.any(String) } });
  });

  it('filters accounts by name, website, owner name or e-mail, created and last-activity bounds', async () => {
    expect(await walk('/v1/accounts', 'accounts')).toHaveLength(85);
    const names = async (query: string) => (await walk(`/v1/accounts?${query}`, 'accounts')).map((a) => a.name as string).sort();
    const expectAccounts = async (query: string, keep: (a: (typeof accounts)[number]) => boolean) => {
      const expected = accounts.filter(keep).map((a) => a.name as string).sort();
      expect(expected.length, query).toBeGreaterThan(0);
      expect(await names(query), query).toEqual(expected);
    };
    await expectAccounts('name=tech', (a) => !!a.name?.toLowerCase().includes('tech'));
    await expectAccounts('website=acme-corp', (a) => a.accountId === 'acme-corporation');
    const owner = accounts.find((a) => a.owner)?.owner;
    await expectAccounts(`owner=${encodeURIComponent(String(owner?.name?.split(' ')[1]).toUpperCase())}`, (a) => a.owner?.name === owner?.name);
    await expectAccounts(`owner=${encodeURIComponent(String(owner?.email))}`, (a) => a.owner?.email === owner?.email);
    await expectAccounts('createdAfter=2010-01-01T00:00:00Z', (a) => ms(a.createdDate) >= ms('2010-01-01'));
    await expectAccounts('createdBefore=1985-01-01T00:00:00Z', (a) => ms(a.createdDate) <= ms('1985-01-01'));
    await expectAccounts('lastActivityBefore=2017-12-15T00:00:00Z', (a) => a.lastActivityDate != null && ms(a.lastActivityDate) <= ms('2017-12-15'));
    const detail = await api.get('/v1/accounts/acme-corporation');
    expect(detail.body.syncedCrmFields).toMatchObject({ Sector: 'technolgy', 'Office Location': 'United States' });
    expect(detail.body.contacts.length).toBeGreaterThan(1);
  });

  it('computes latestDeal: the newest open deal, else the newest closed one', async () => {
    const newest = (list: SeedDealInput[]) => [...list].sort((a, b) => ms(b.createdDate) - ms(a.createdDate))[0];
    const dealsOf = (id: string) => deals.filter((d) => d.accountId === id);
    const withOpen = accounts.find((a) => dealsOf(a.accountId).some((d) => !d.closed));
    const closedOnly = accounts.find((a) => dealsOf(a.accountId).length > 0 && dealsOf(a.accountId).every((d) => d.closed));
    expect(withOpen && closedOnly).toBeTruthy();
    const open = newest(dealsOf(withOpen?.accountId ?? '').filter((d) => !d.closed));
    expect((await api.get(`/v1/accounts/${withOpen?.accountId ?? ''}`)).body.latestDeal).toEqual({
      dealId: open?.dealId, name: open?.name, stage: open?.stage, amount: null, closeDate: null,
    });
    const closed = newest(dealsOf(closedOnly?.accountId ?? ''));
    const latest = (await api.get(`/v1/accounts/${closedOnly?.accountId ?? ''}`)).body.latestDeal;
    expect(latest.dealId).toBe(closed?.dealId);
    expect(['Won', 'Lost']).toContain(latest.stage);
    // A newer closed deal of the first account does not beat its open one.
    expect(dealsOf(withOpen?.accountId ?? '').some((d) => d.closed && ms(d.createdDate) > ms(open?.createdDate))).toBe(true);
  });

  it('filters native conversations by sourceId, attendees, crmName and type; keeps legacy categories', async () => {
    const all = await walk('/v1/conversations', 'conversations');
    expect(all).toHaveLength(36);
    const count = async (query: string) => (await walk(`/v1/conversations?${query}`, 'conversations')).length;
    expect(await count('sourceId=aircall_dialer')).toBe(3);
    expect(await count('sourceId=uploaded_call')).toBe(3);
    expect(await count('sourceId=fireflies')).toBe(12);
    expect(await count('sourceId=zoom_phone')).toBe(0);
    expect(await count('type=INTERNAL')).toBe(21);
    expect(await count('attendees=patricia')).toBe(1);
    expect(await count('attendees=patricia.brown@example.net')).toBe(1);
    expect(await count('attendees=@example.net')).toBe(6);
    expect(await count('attendees=ferry-demo.example')).toBe(27);
    expect(await count('attendees=Barry%20Hughes')).toBe(1);
    const linked = (seed.conversations ?? []).filter((c) => c.crm?.type === 'account');
    const name = String(linked[0]?.crm?.name);
    expect(await count(`crmName=${encodeURIComponent(name.toUpperCase())}`)).toBe(linked.filter((c) => c.crm?.name === name).length);
    expect(await count(`crmName=${encodeURIComponent(name.slice(0, -2))}`)).toBe(0);
    expect(await count('title=remote%20control&startedAfter=2024-01-29T00:00:00Z')).toBeGreaterThan(0);

    const legacy = all.filter((c) => String(c.title).startsWith('Research group')).slice(-2);
    const categories = await Promise.all(legacy.map(async (c) => (await api.get(`/v1/conversations/${String(c.conversationId)}`)).body.category));
    expect(categories.sort()).toEqual(['customer_team', 'investment_team']);
  });

  it('serves recordings with Range support: 206 with Content-Range, 416 out of range', async () => {
    const [call] = (await api.get('/v1/conversations?sourceId=aircall_dialer&limit=1')).body.conversations;
    const detail = await api.get(`/v1/conversations/${call.conversationId}`);
    expect(detail.body).toMatchObject({ category: 'customer_support', type: 'EXTERNAL', summary: { headline: expect.stringMatching(/^The caller/) } });
    expect(detail.body.transcript[0]).toEqual({ speaker: expect.any(String), text: expect.any(String), startTime: expect.any(Number), endTime: expect.any(Number) });
    const stream = detail.body.recordings.audioStreamUrl as string;
    const whole = await fetch(stream);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const size = (await whole.arrayBuffer()).byteLength;
    const part = await fetch(stream, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${size}`);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const tail = await fetch(stream, { headers: { range: 'bytes=-44' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 44}-${size - 1}/${size}`);
    await tail.arrayBuffer();
    const beyond = await fetch(stream, { headers: { range: `bytes=${size}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);
    await beyond.arrayBuffer();
    const [meeting] = (await api.get('/v1/conversations?sourceId=fireflies&limit=1')).body.conversations;
    const recordings = (await api.get(`/v1/conversations/${meeting.conversationId}`)).body.recordings;
    expect(recordings.videoUrl).toMatch(/\/media\//);
  });

  it('filters messages by native sourceId and participantEmail; CRM-logged ones answer 400 on detail', async () => {
    for (const source of ['outlook', 'gmail', 'salesforce_crm']) {
      const page = (await api.get(`/v1/messages?sourceId=${source}`)).body.messages as { sourceId: string }[];
      expect(page.length, source).toBeGreaterThan(0);
      expect(page.every((m) => m.sourceId === source)).toBe(true);
    }
    const counts = new Map<string, number>();
    for (const m of seed.messages ?? []) {
      for (const e of new Set([m.sender?.email, ...(m.recipients ?? []).map((r) => r.email)])) if (e) counts.set(e.toLowerCase(), (counts.get(e.toLowerCase()) ?? 0) + 1);
    }
    const email = [...counts].filter(([, n]) => n >= 5 && n <= 40).sort()[0]?.[0] ?? '';
    const expected = (seed.messages ?? [])
      .filter((m) => [m.sender?.email, ...(m.recipients ?? []).map((r) => r.email)].some((e) => e?.toLowerCase() === email))
      .map((m) => m.remoteId)
      .sort();
    const got = (await walk(`/v1/messages?participantEmail=${encodeURIComponent(email.toUpperCase())}`, 'messages')).map((m) => m.remoteId).sort();
    expect(got).toEqual(expected);

    const [crm] = (await api.get('/v1/messages?sourceId=salesforce_crm&limit=1')).body.messages;
    const refused = await api.get(`/v1/messages/${crm.messageId}`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/salesforce_crm/);
    const withFile = (seed.messages ?? []).find((m) => (m.attachments?.length ?? 0) > 0);
    const [listed] = (await api.get(`/v1/messages?remoteId=${encodeURIComponent(String(withFile?.remoteId))}`)).body.messages;
    const detail = await api.get(`/v1/messages/${listed.messageId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.attachments[0]).toMatchObject({ id: expect.any(String), filename: withFile?.attachments?.[0]?.filename, size: null });
  });

  it('filters documents by native sourceId and name; other strings answer 422', async () => {
    expect((await api.get('/v1/documents?sourceId=chat_upload')).body.documents).toHaveLength(35);
    const attachments = (await api.get('/v1/documents?sourceId=mailbox_attachment')).body.documents;
    expect(attachments.map((d: { displayName: string }) => d.displayName).sort()).toEqual(['rfc3339.txt', 'rfc4180.txt', 'rfc5322.txt']);
    const [zoom] = (await api.get('/v1/documents?name=zoom')).body.documents;
    expect(zoom).toMatchObject({ displayName: 'Zoom', sourceId: 'chat_upload', contentType: 'text/markdown', url: null });
    expect((await api.get(`/v1/documents/${zoom.id}`)).status).toBe(200);
    // Documents come from created sources, chat_upload or mailbox_attachment only (a seed cannot add others).
    expect((await api.get('/v1/documents?sourceId=google_drive')).status).toBe(422);
  });

  it('answers ask from seeded records, citing a Harper Valley call', async () => {
    const calls = [...(await walk('/v1/conversations?sourceId=aircall_dialer', 'conversations')), ...(await walk('/v1/conversations?sourceId=uploaded_call', 'conversations'))];
    const replaceCalls = calls.filter((c) => String(c.title).includes('replace card')).map((c) => c.conversationId as string);
    expect(replaceCalls).toHaveLength(3);
    const res = await api.post('/v1/ask-assistant', { message: 'What did the caller need to replace?' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    const cited = [...String(res.body.output).matchAll(/\[conversation ([0-9a-f-]{36})\]/g)].map((m) => m[1]);
    expect(cited[0] && replaceCalls.includes(cited[0])).toBe(true);
    expect(res.body.output).toMatch(/replace their (debit|credit) card/);
  });
});

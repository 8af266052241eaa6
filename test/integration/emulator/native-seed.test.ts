import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type SeedFile } from '../../../src/emulator/index.js';
import { generateWav } from '../../../src/emulator/media/wav.js';
import { apiFor, type Api } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-seed-'));
const CONV_ID = '11111111-2222-4333-8444-555555555555';

const seed: SeedFile = {
  deals: [
    { dealId: 'D-1', name: 'Acme renewal', accountId: 'A-1', stage: 'Negotiation', amount: 50000, closed: false, createdDate: '2024-01-10T00:00:00Z', lastActivityDate: '2024-03-01T00:00:00Z', owner: { name: 'Olga Owner', email: 'olga@us.com' }, summary: { nextStep: 'send quote' }, crmAutofill: { amount: 52000 }, contacts: [{ name: 'Ann', email: 'ann@acme.com', title: 'CFO', phone: null }] },
    { dealId: 'D-2', name: 'Acme expansion', accountId: 'A-1', stage: 'Closed Won', amount: 9000, closed: true, createdDate: '2024-02-10T00:00:00Z', closeDate: '2024-02-20T00:00:00Z' },
    { dealId: 'D-3', name: 'Acme pilot', accountName: 'Acme', stage: 'Discovery', amount: 1000, closed: false, createdDate: '2023-12-01T00:00:00Z', owner: { name: 'Pete' } },
    { dealId: 'D-4', name: 'Globex', accountId: 'A-2', stage: 'Closed Lost', amount: 700, closed: true, createdDate: '2023-05-01T00:00:00Z' },
    { dealId: 'D-5', name: 'Globex older', accountId: 'A-2', stage: 'Closed Won', amount: 800, closed: true, createdDate: '2023-01-01T00:00:00Z' },
  ],
  accounts: [
    { accountId: 'A-1', name: 'Acme', website: 'https://acme.com', owner: { name: 'Olga Owner', email: 'olga@us.com' }, createdDate: '2023-01-01T00:00:00Z', syncedCrmFields: { Industry: 'Manufacturing' }, contacts: [{ name: 'Ann', email: 'ann@acme.com' }] },
    { accountId: 'A-2', name: 'Globex', website: 'globex.io', createdDate: '2022-01-01T00:00:00Z' },
    { accountId: 'A-3', name: 'Initech', createdDate: '2021-01-01T00:00:00Z' },
  ],
  conversations: [
    {
      id: CONV_ID,
      sourceId: 'gong',
      title: 'Acme negotiation',
      startTime: '2024-03-01T15:00:00Z',
      participants: [{ name: 'Olga Owner', email: 'olga@us.com' }, { name: 'Ann', email: 'ann@acme.com' }],
      crm: { id: 'D-1', name: 'Acme Renewal', type: 'opportunity' },
      category: 'prospect_negotiation',
      summary: { outcome: 'agreed on terms' },
      transcript: [{ speaker: 'Olga', text: 'Shall we sign?', startTime: 0, endTime: 4 }, { speaker: 'Ann', text: 'Yes.', startTime: 4, endTime: 6 }],
      recording: { audio: { path: 'call.wav' }, video: true },
    },
    { sourceId: 'zoom_phone', remoteId: 'z-1', title: 'Hidden', startTime: 1709300000, public: false },
  ],
  messages: [{ sourceId: 'gmail', remoteId: 'g-1', subject: 'Quote', sender: { email: 'olga@us.com' }, recipients: [{ email: 'ann@acme.com' }], body: 'Attached.', createdAt: '2024-03-02T00:00:00Z', attachments: [{ filename: 'quote.pdf', contentType: 'application/pdf', size: 10 }] }],
  documents: [{ sourceId: 'chat_upload', remoteId: 'up-1', displayName: 'Notes.txt', text: 'Chat notes', createdAt: '2024-03-03T00:00:00Z' }],
};

describe('emulator: native seed data', () => {
  let api: Api;
  beforeAll(async () => {
    writeFileSync(join(dir, 'call.wav'), generateWav(1, 220));
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    const emu = await startEmulator({ seed: join(dir, 'seed.json') });
    api = apiFor(emu, emu.devKey ?? '');
  });
  afterAll(async () => {
    await api.emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists and filters deals', async () => {
    const all = await api.get('/v1/deals');
    expect(all.body.deals.map((d: { dealId: string }) => d.dealId)).toEqual(['D-2', 'D-1', 'D-3', 'D-4', 'D-5']);
    expect(all.body.deals[0]).not.toHaveProperty('contacts');
    const ids = async (q: string) => ((await api.get(`/v1/deals?${q}`)).body.deals as { dealId: string }[]).map((d) => d.dealId);
    expect(await ids('name=ACME')).toEqual(['D-2', 'D-1', 'D-3']);
    expect(await ids('stage=closed')).toEqual(['D-2', 'D-4', 'D-5']);
    expect(await ids('closed=false')).toEqual(['D-1', 'D-3']);
    expect(await ids('owner=olga')).toEqual(['D-1']);
    expect(await ids('amountMin=900&amountMax=10000')).toEqual(['D-2', 'D-3']);
    expect(await ids('closeDateAfter=2024-02-01T00:00:00Z')).toEqual(['D-2']);
    expect(await ids('lastActivityBefore=2024-12-01T00:00:00Z')).toEqual(['D-1']);
    const page = await api.get('/v1/deals?limit=2');
    expect(page.body.pagination.hasMore).toBe(true);
    const next = await api.get(`/v1/deals?limit=2&cursor=${page.body.pagination.nextCursor}`);
    expect(next.body.deals.map((d: { dealId: string }) => d.dealId)).toEqual(['D-3', 'D-4']);
  });

  it('returns deal detail', async () => {
    const d = await api.get('/v1/deals/D-1');
    expect(d.body).toMatchObject({ dealId: 'D-1', summary: { nextStep: 'send quote' }, crmAutofill: { amount: 52000 }, owner: { name: 'Olga Owner', email: 'olga@us.com' } });
    expect(d.body.contacts).toEqual([{ name: 'Ann', email: 'ann@acme.com', title: 'CFO', phone: null }]);
    expect((await api.get('/v1/deals/D-404')).status).toBe(404);
  });

  it('computes latestDeal: newest open deal, else newest closed', async () => {
    const acme = await api.get('/v1/accounts/A-1');
    expect(acme.body.latestDeal).toEqual({ dealId: 'D-1', name: 'Acme renewal', stage: 'Negotiation', amount: 50000, closeDate: null });
    expect(acme.body.syncedCrmFields).toEqual({ Industry: 'Manufacturing' });
    expect(acme.body.contacts).toHaveLength(1);
    const globex = await api.get('/v1/accounts/A-2');
    expect(globex.body.latestDeal.dealId).toBe('D-4');
    expect((await api.get('/v1/accounts/A-3')).body.latestDeal).toBeNull();
    const ids = async (q: string) => ((await api.get(`/v1/accounts?${q}`)).body.accounts as { accountId: string }[]).map((a) => a.accountId);
    expect(await ids('')).toEqual(['A-1', 'A-2', 'A-3']);
    expect(await ids('website=GLOBEX')).toEqual(['A-2']);
    expect(await ids('owner=olga@us')).toEqual(['A-1']);
    expect(await ids('createdBefore=2022-06-01T00:00:00Z')).toEqual(['A-2', 'A-3']);
  });

  it('serves native conversations with category, summary, crm and recordings', async () => {
    const list = await api.get('/v1/conversations?sourceId=gong');
    expect(list.body.conversations).toHaveLength(1);
    expect((await api.get('/v1/conversations?crmName=acme renewal')).body.conversations).toHaveLength(1);
    expect((await api.get('/v1/conversations?crmName=acme renew')).body.conversations).toHaveLength(0);
    const d = await api.get(`/v1/conversations/${CONV_ID}`);
    expect(d.body).toMatchObject({
      conversationId: CONV_ID,
      sourceId: 'gong',
      type: 'EXTERNAL',
      category: 'prospect_negotiation',
      summary: { outcome: 'agreed on terms' },
      crm: { id: 'D-1', name: 'Acme Renewal', type: 'opportunity' },
      endTime: '2024-03-01T15:00:06.000Z',
    });
    const audio = await fetch(d.body.recordings.audioStreamUrl, { headers: { range: 'bytes=0-3' } });
    expect(audio.status).toBe(206);
    expect(Buffer.from(await audio.arrayBuffer()).toString()).toBe('RIFF');
    expect(d.body.recordings.videoUrl).toMatch(/\/media\//);
    expect((await api.get('/v1/conversations?sourceId=zoom_phone')).body.conversations).toEqual([]);
  });

  it('serves native messages and documents', async () => {
    const msgs = await api.get('/v1/messages?sourceId=gmail');
    expect(msgs.body.messages[0]).toMatchObject({ sourceId: 'gmail', remoteId: 'g-1', subject: 'Quote' });
    const detail = await api.get(`/v1/messages/${msgs.body.messages[0].messageId}`);
    expect(detail.body.attachments[0]).toMatchObject({ filename: 'quote.pdf', contentType: 'application/pdf', size: 10 });
    const docs = await api.get('/v1/documents?sourceId=chat_upload');
    expect(docs.body.documents[0]).toMatchObject({ displayName: 'Notes.txt', sourceId: 'chat_upload', remoteId: 'up-1', url: null, contentType: 'text/plain' });
  });

  it('loads the same seed idempotently at every start', async () => {
    const db = join(dir, 'seeded.db');
    const first = await startEmulator({ db, seed: join(dir, 'seed.json') });
    await first.close();
    const second = await startEmulator({ db, seed: join(dir, 'seed.json') });
    try {
      const a = apiFor(second, second.devKey ?? '');
      expect((await a.get('/v1/deals?limit=50')).body.deals).toHaveLength(5);
      expect((await a.get(`/v1/conversations/${CONV_ID}`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { detailUnsupported } from '../../../src/emulator/handlers/shared.js';
import { summaryText } from '../../../src/emulator/search/passages.js';
import { seedDataset, type SeedDatasetInput } from '../../../src/emulator/seed/format.js';
import { DEFAULT_DATASETS_DIR, DEMO_OPTIONS, generateSeed, summarizeSeed } from '../../../src/emulator/seed/generate.js';
import { splitFrontMatter } from '../../../src/emulator/seed/generate-documents.js';
import { attachmentsOf, displayName, parseMbox, threadSubject } from '../../../src/emulator/seed/generate-mail.js';
import { cleanTurn } from '../../../src/emulator/seed/generate-meetings.js';
import { rngFor } from '../../../src/emulator/seed/generate-random.js';
import { slugify } from '../../../src/emulator/seed/generate-people.js';

describe('seed generator over shared/datasets', () => {
  let full: SeedDatasetInput;
  beforeAll(() => {
    expect(existsSync(DEFAULT_DATASETS_DIR)).toBe(true);
    full = generateSeed();
  });

  it('takes every record of the datasets, de-duplicating the e-mails', () => {
    // 6 Harper Valley calls + 30 QMSum meetings; 1,397 distinct Enron mails + 20 CRM activity mails; 35 pages + 3 RFCs.
    expect(summarizeSeed(full)).toEqual({ deals: 8800, accounts: 85, conversations: 36, messages: 1417, documents: 38 });
    expect(full.messages?.filter((m) => m.sourceId === 'salesforce_crm')).toHaveLength(20);
    expect(seedDataset.safeParse(full).success).toBe(true);
  });

  it('is deterministic for a seed and varies the invented values with it', () => {
    expect(JSON.stringify(generateSeed())).toBe(JSON.stringify(full));
    const other = generateSeed({ seed: 7, limit: 10 });
    expect(other.accounts?.map((a) => a.accountId)).toEqual(full.accounts?.map((a) => a.accountId));
    expect(other.accounts?.[0]?.contacts).not.toEqual(full.accounts?.[0]?.contacts);
    expect(other.deals).toHaveLength(10);
    expect(other.messages?.filter((m) => m.sourceId !== 'salesforce_crm')).toHaveLength(10);
  });

  it('maps the pipeline with its quirks handled', () => {
    const deals = full.deals ?? [];
    const first = deals.find((d) => d.dealId === '1C1I7A6R');
    expect(first).toMatchObject({
      name: 'Cancity – GTX Plus Basic',
      accountId: 'cancity',
      stage: 'Won',
      pipeline: 'Sales',
      amount: 1054,
      closed: true,
      closeDate: '2017-03-01T00:00:00.000Z',
      owner: { name: 'Moses Frase', email: 'moses.frase@ferry-demo.example' },
    });
    expect(String(first?.createdDate).slice(0, 10)).toBe('2016-10-20');
    // GTXPro in the pipeline is GTX Pro in products.csv.
    expect(deals.some((d) => d.name?.includes('GTXPro'))).toBe(false);
    expect(deals.filter((d) => d.name?.endsWith('GTX Pro')).length).toBe(1480);
    const open = deals.filter((d) => d.closed === false);
    expect(open).toHaveLength(2089);
    expect(open.every((d) => d.amount === null && d.closeDate === null && d.crmAutofill !== null)).toBe(true);
    expect(deals.every((d) => typeof d.createdDate === 'string' && typeof d.lastActivityDate === 'string')).toBe(true);
    expect(deals.filter((d) => d.accountId === null)).toHaveLength(1425);
    expect(deals.filter((d) => d.stage === 'Lost').every((d) => d.amount === 0)).toBe(true);
    const prospect = deals.find((d) => d.stage === 'Prospecting');
    expect(prospect?.summary).toMatchObject({ headline: expect.any(String), nextSteps: expect.any(Array), risks: expect.any(Array) });
  });

  it('builds accounts with synced CRM fields as the CRM holds them', () => {
    const acme = full.accounts?.find((a) => a.accountId === 'acme-corporation');
    expect(acme).toMatchObject({
      name: 'Acme Corporation',
      website: 'https://acme-corporation.com',
      syncedCrmFields: { Sector: 'technolgy', Revenue: 1100.04, Employees: 2822, 'Office Location': 'United States', 'Subsidiary Of': null },
    });
    expect(String(acme?.createdDate).slice(0, 4)).toBe('1996');
    // The owner is the agent with most deals on the account.
    const counts = new Map<string, number>();
    for (const d of full.deals ?? []) if (d.accountId === 'acme-corporation') counts.set(d.owner?.name ?? '', (counts.get(d.owner?.name ?? '') ?? 0) + 1);
    const most = Math.max(...counts.values());
    expect(counts.get(acme?.owner?.name ?? '')).toBe(most);
    const latest = (full.deals ?? []).filter((d) => d.accountId === 'acme-corporation').map((d) => String(d.lastActivityDate)).sort().at(-1);
    expect(acme?.lastActivityDate).toBe(latest);
    expect(acme?.contacts?.every((c) => c.email?.endsWith('@acme-corporation.com'))).toBe(true);
  });

  it('turns Harper Valley calls into dialer conversations with offsets in seconds', () => {
    const calls = (full.conversations ?? []).filter((c) => c.category === 'customer_support');
    expect(calls).toHaveLength(6);
    expect(new Set(calls.map((c) => c.sourceId))).toEqual(new Set(['aircall_dialer', 'uploaded_call']));
    const call = calls.find((c) => c.remoteId === '0091a706bc604188');
    expect(call?.startTime).toMatch(/^2020-05-30T/);
    expect(call?.participants?.map((p) => p.name)).toEqual(['Jennifer', 'Elizabeth Davis']);
    const starts = call?.transcript?.map((e) => e.startTime) ?? [];
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(call?.transcript?.every((e) => (e.endTime ?? 0) >= e.startTime && e.startTime < 120)).toBe(true);
    expect(call?.transcript?.some((e) => /^\[[^\]]*\]$/.test(e.text))).toBe(false);
    expect(call?.recording).toEqual({ audio: true });
  });

  it('turns QMSum meetings into notetaker conversations by domain', () => {
    const meetings = (full.conversations ?? []).filter((c) => c.remoteId?.startsWith('qmsum-'));
    expect(meetings).toHaveLength(30);
    const by = (id: string) => meetings.find((m) => m.remoteId === `qmsum-${id}`);
    expect(by('ES2002a')).toMatchObject({ sourceId: 'fireflies', type: 'INTERNAL', category: 'product_team' });
    expect(by('Bmr003')).toMatchObject({ sourceId: 'service', type: 'INTERNAL', category: 'engineering_team' });
    expect(by('covid_0')).toMatchObject({ sourceId: 'gong', type: 'EXTERNAL', category: 'other' });
    expect(meetings.filter((m) => m.category === 'customer_team' || m.category === 'investment_team')).toHaveLength(2);
    expect(meetings.filter((m) => m.crm).length).toBe(9);
    // A series stays in order on consecutive days.
    const series = ['a', 'b', 'c', 'd'].map((s) => String(by(`ES2002${s}`)?.startTime));
    expect(series).toEqual([...series].sort());
    const summary = by('ES2002a')?.summary as { overview: string; topics: string[] };
    expect(summary.overview).toMatch(/kick-off meeting/);
    expect(by('ES2002a')?.transcript?.some((e) => e.text.includes('{disfmarker}'))).toBe(false);
  });

  it('keeps every stage in a limited sample, leaving some accounts with closed deals only', () => {
    const demo = generateSeed(DEMO_OPTIONS);
    expect(demo.deals).toHaveLength(2000);
    expect(new Set(demo.deals?.map((d) => d.stage))).toEqual(new Set(['Won', 'Lost', 'Engaging', 'Prospecting']));
    const open = new Set(demo.deals?.filter((d) => !d.closed && d.accountId).map((d) => d.accountId));
    const any = new Set(demo.deals?.filter((d) => d.accountId).map((d) => d.accountId));
    expect([...any].filter((a) => !open.has(a)).length).toBeGreaterThan(0);
    expect(open.size).toBeGreaterThan(0);
  });

  it('reads documents with front-matter titles and RFCs as mailbox attachments', () => {
    const docs = full.documents ?? [];
    expect(docs.filter((d) => d.sourceId === 'chat_upload')).toHaveLength(35);
    expect(docs.find((d) => d.remoteId === '18f-handbook/pages/tools/zoom.md')).toMatchObject({ displayName: 'Zoom', contentType: 'text/markdown', url: null });
    expect(docs.find((d) => d.remoteId === 'rfc/rfc4180.txt')).toMatchObject({ sourceId: 'mailbox_attachment', displayName: 'rfc4180.txt', contentType: 'text/plain' });
    expect(docs.every((d) => !d.text?.startsWith('---'))).toBe(true);
  });

  it('fails clearly without the datasets folder', () => {
    expect(() => generateSeed({ datasetsDir: '/nonexistent/datasets' })).toThrow(/does not exist/);
  });
});

describe('seed generator helpers', () => {
  it('rngFor gives the same stream for the same parts', () => {
    const a = rngFor(1, 'x');
    const b = rngFor(1, 'x');
    expect([a.next(), a.int(1, 6), a.pick(['p', 'q'])]).toEqual([b.next(), b.int(1, 6), b.pick(['p', 'q'])]);
    expect(rngFor(1, 'y').next()).not.toBe(rngFor(1, 'x').next());
    expect(rngFor(3, 's').sample([1, 2, 3, 4, 5], 3)).toHaveLength(3);
  });

  it('slugs, subjects, names and attachments', () => {
    expect(slugify('Acme Corporation')).toBe('acme-corporation');
    expect(slugify('Siân & Co.')).toBe('sian-co');
    expect(threadSubject('Re: FW: RE:  Gas  prices')).toBe('gas prices');
    expect(threadSubject('')).toBe('');
    expect(displayName('Allen, Phillip K. </O=ENRON/OU=NA/CN=RECIPIENTS/CN=PALLEN>')).toBe('Phillip K. Allen');
    expect(displayName('"Buckner, Buck" <buck.buckner@honeywell.com> @ ENRON')).toBe('Buck Buckner');
    expect(attachmentsOf('See attached.\n - Westgate Proforma-Phillip Allen.xls\nthe file budget.xls is old')).toEqual([
      { filename: 'Westgate Proforma-Phillip Allen.xls', contentType: 'application/vnd.ms-excel', size: null },
    ]);
    expect(cleanTurn('Um , we {disfmarker} we \'re ready .')).toBe("Um, we we're ready.");
    expect(splitFrontMatter('---\ntitle: "Zoom"\n---\nBody\n')).toEqual({ title: 'Zoom', body: 'Body\n' });
    expect(splitFrontMatter('no front matter')).toEqual({ title: null, body: 'no front matter' });
  });

  it('parses mbox messages, decoding only declared quoted-printable and unescaping >From', () => {
    const mbox = [
      'From MAILER-DAEMON Mon Apr 18 14:23:23 2022',
      'Subject: one',
      'To: a@x.com,',
      '\tb@x.com',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'a=3Db soft=',
      'break',
      '>From here',
      '',
      'From MAILER-DAEMON Mon Apr 18 14:23:24 2022',
      'Subject: two',
      'Content-Transfer-Encoding: 7bit',
      '',
      'keep =3D',
      '',
    ].join('\n');
    const mails = parseMbox(mbox, 'inbox');
    expect(mails).toHaveLength(2);
    expect(mails[0]?.headers.to).toBe('a@x.com, b@x.com');
    expect(mails[0]?.body).toBe('a=b softbreak\nFrom here');
    expect(mails[1]?.body).toBe('keep =3D');
  });

  it('renders summaries as text for the search index', () => {
    expect(summaryText({ headline: 'The caller needed a card.', count: 2, tags: ['a', { x: true }], none: null })).toEqual([
      'The caller needed a card.',
      'count: 2',
      'a',
      'x: true',
    ]);
  });

  it('detail endpoints refuse CRM-logged messages and unknown native document sources', () => {
    expect(detailUnsupported('message', 'salesforce_crm')).toBe(true);
    expect(detailUnsupported('message', 'gmail')).toBe(false);
    expect(detailUnsupported('message', '6f1c0a52-8d5e-4a8e-9a43-0f3a1b2c3d4e')).toBe(false);
    expect(detailUnsupported('document', 'chat_upload')).toBe(false);
    expect(detailUnsupported('document', 'mailbox_attachment')).toBe(false);
    expect(detailUnsupported('document', 'google_drive')).toBe(true);
  });
});

/**
 * Loads a seed into the store. Loading is an idempotent upsert (records keep
 * their ids), so a file-backed emulator can load the same seed at every start.
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { stableUuid } from '../app.js';
import { conversationType } from '../ingest/conversation.js';
import { generateWav } from '../media/wav.js';
import type { EmulatorStore } from '../store/index.js';
import type { ConversationData, RecordingMedia, TranscriptEntryData } from '../store/types.js';
import { seedFile, type SeedDataset, type SeedFile } from './format.js';
import { demoSeed } from './generate.js';
import type { z } from 'zod';
import type { seedMedia } from './format.js';

export interface SeedCounts {
  deals: number;
  accounts: number;
  conversations: number;
  messages: number;
  documents: number;
}

const CONTENT_TYPES: Record<string, string> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
};

/** The seed name that stands for data generated from the shared datasets rather than a file. */
export const DEMO_SEED = 'demo';

/**
 * Parse a seed given as an object, a JSON file path, or `demo` (generated
 * from the shared datasets with the generator's defaults); returns the
 * datasets and the directory paths resolve against.
 */
export function readSeed(seed: string | SeedFile): { datasets: SeedDataset[]; baseDir: string } {
  const raw: unknown =
    seed === DEMO_SEED ? demoSeed() : typeof seed === 'string' ? JSON.parse(readFileSync(seed, 'utf8')) : seed;
  const parsed = seedFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid seed${typeof seed === 'string' ? ` ${seed}` : ''}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  }
  return {
    datasets: Array.isArray(parsed.data) ? parsed.data : [parsed.data],
    baseDir: typeof seed === 'string' && seed !== DEMO_SEED ? dirname(resolve(seed)) : process.cwd(),
  };
}

function mediaBytes(spec: z.output<typeof seedMedia>, seconds: number, baseDir: string): { bytes: Buffer; contentType: string } {
  if (spec === true || (!spec.path && !spec.base64)) {
    return { bytes: generateWav(Math.min(5, Math.max(1, seconds))), contentType: 'audio/wav' };
  }
  if (spec.path) {
    const path = resolve(baseDir, spec.path);
    return { bytes: readFileSync(path), contentType: spec.contentType ?? CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream' };
  }
  return { bytes: Buffer.from(spec.base64 ?? '', 'base64'), contentType: spec.contentType ?? 'audio/wav' };
}

function loadDataset(store: EmulatorStore, d: SeedDataset, orgId: string, baseDir: string): SeedCounts {
  for (const deal of d.deals) seedDeal(store, orgId, deal);
  for (const account of d.accounts) seedAccount(store, orgId, account);
  d.conversations.forEach((c, i) => seedConversation(store, orgId, c, i, baseDir));
  d.messages.forEach((m, i) => seedMessage(store, orgId, m, i));
  d.documents.forEach((doc, i) => seedDocument(store, orgId, doc, i));
  return {
    deals: d.deals.length,
    accounts: d.accounts.length,
    conversations: d.conversations.length,
    messages: d.messages.length,
    documents: d.documents.length,
  };
}

function seedDeal(store: EmulatorStore, orgId: string, deal: SeedDataset['deals'][number]): void {
  store.crm.upsertDeal(orgId, {
    dealId: deal.dealId,
    name: deal.name ?? null,
    accountId: deal.accountId ?? null,
    accountName: deal.accountName ?? null,
    stage: deal.stage ?? null,
    pipeline: deal.pipeline ?? null,
    amount: deal.amount ?? null,
    closeDate: deal.closeDate ?? null,
    closed: deal.closed ?? null,
    createdDate: deal.createdDate ?? null,
    lastActivityDate: deal.lastActivityDate ?? null,
    owner: deal.owner ? { name: deal.owner.name ?? null, email: deal.owner.email ?? null } : null,
    summary: deal.summary ?? null,
    crmAutofill: deal.crmAutofill ?? null,
    contacts: (deal.contacts ?? []).map((c) => ({ name: c.name ?? null, email: c.email ?? null, title: c.title ?? null, phone: c.phone ?? null })),
  });
}

function seedAccount(store: EmulatorStore, orgId: string, a: SeedDataset['accounts'][number]): void {
  store.crm.upsertAccount(orgId, {
    accountId: a.accountId,
    name: a.name ?? null,
    website: a.website ?? null,
    owner: a.owner ? { name: a.owner.name ?? null, email: a.owner.email ?? null } : null,
    createdDate: a.createdDate ?? null,
    lastActivityDate: a.lastActivityDate ?? null,
    contacts: (a.contacts ?? []).map((c) => ({ name: c.name ?? null, email: c.email ?? null, title: c.title ?? null, phone: c.phone ?? null })),
    syncedCrmFields: a.syncedCrmFields ?? null,
  });
}

function seedConversation(store: EmulatorStore, orgId: string, c: SeedDataset['conversations'][number], i: number, baseDir: string): void {
  const remoteId = c.remoteId ?? c.id ?? `seed-conversation-${i}`;
  const id = c.id ?? stableUuid(orgId, 'conversation', c.sourceId, remoteId);
  const startMs = Date.parse(c.startTime);
  const transcript: TranscriptEntryData[] | null = c.transcript
    ? c.transcript.map((e) => ({ speaker: e.speaker, text: e.text, startTime: e.startTime, endTime: e.endTime ?? e.startTime }))
    : null;
  const lastOffset = transcript?.reduce((max, e) => Math.max(max, e.endTime), 0) ?? 0;
  const endMs = c.endTime ? Date.parse(c.endTime) : startMs + lastOffset * 1000;
  const recordings: RecordingMedia = {};
  for (const kind of ['audio', 'video'] as const) {
    const spec = c.recording?.[kind];
    if (!spec) continue;
    const mediaId = stableUuid(orgId, 'media', id, kind);
    store.media.put({ id: mediaId, orgId, ...mediaBytes(spec, (endMs - startMs) / 1000, baseDir) });
    recordings[kind] = mediaId;
  }
  const participants = c.participants.map((p) => ({ name: p.name ?? null, email: p.email ?? null, attended: p.attended }));
  const data: ConversationData = {
    title: c.title ?? null,
    startTime: new Date(startMs).toISOString(),
    endTime: new Date(endMs).toISOString(),
    type: c.type ?? conversationType(participants),
    participants,
    crm: c.crm ? { id: c.crm.id ?? null, name: c.crm.name ?? null, type: c.crm.type ?? null } : null,
    category: c.category ?? null,
    summary: c.summary ?? null,
    transcript,
    recordings: recordings.audio || recordings.video ? recordings : null,
  };
  store.putRecord(
    { orgId, kind: 'conversation', sourceId: c.sourceId, remoteId },
    { id, native: true, public: c.public, ownerEmails: [], sortMs: startMs, data },
  );
}

function seedMessage(store: EmulatorStore, orgId: string, m: SeedDataset['messages'][number], i: number): void {
  const remoteId = m.remoteId ?? m.id ?? `seed-message-${i}`;
  const id = m.id ?? stableUuid(orgId, 'message', m.sourceId, remoteId);
  const party = (p: { name?: string | null; email?: string | null }) => ({ name: p.name ?? null, email: p.email ?? null });
  store.putRecord(
    { orgId, kind: 'message', sourceId: m.sourceId, remoteId },
    {
      id,
      native: true,
      public: m.public,
      ownerEmails: [],
      sortMs: Date.parse(m.createdAt),
      data: {
        threadId: m.threadId ?? null,
        subject: m.subject ?? null,
        sender: m.sender ? party(m.sender) : null,
        recipients: m.recipients.map(party),
        body: m.body,
        createdAt: m.createdAt,
        attachments: (m.attachments ?? []).map((a, j) => ({
          id: a.id ?? stableUuid(id, 'attachment', String(j)),
          filename: a.filename ?? null,
          contentType: a.contentType ?? null,
          size: a.size ?? null,
        })),
      },
    },
  );
}

function seedDocument(store: EmulatorStore, orgId: string, doc: SeedDataset['documents'][number], i: number): void {
  const remoteId = doc.remoteId ?? doc.id ?? `seed-document-${i}`;
  const id = doc.id ?? stableUuid(orgId, 'document', doc.sourceId, remoteId);
  store.putRecord(
    { orgId, kind: 'document', sourceId: doc.sourceId, remoteId },
    {
      id,
      native: true,
      public: doc.public,
      ownerEmails: [],
      sortMs: doc.createdAt ? Date.parse(doc.createdAt) : 0,
      data: {
        displayName: doc.displayName,
        url: doc.url ?? null,
        contentType: doc.contentType,
        filename: null,
        createdAt: doc.createdAt ?? null,
        updatedAt: doc.updatedAt ?? null,
        author: null,
        version: 1,
        text: doc.text ?? null,
        contentBytes: doc.text != null ? Buffer.byteLength(doc.text) : null,
      },
    },
  );
}

/** Load every dataset of the seed; datasets without orgId go to `defaultOrgId`. */
export function loadSeed(store: EmulatorStore, seed: string | SeedFile, defaultOrgId: string | undefined): SeedCounts {
  const { datasets, baseDir } = readSeed(seed);
  const total: SeedCounts = { deals: 0, accounts: 0, conversations: 0, messages: 0, documents: 0 };
  store.db.transaction(() => {
    for (const dataset of datasets) {
      const orgId = dataset.orgId ?? defaultOrgId;
      if (!orgId) throw new Error('the seed names no orgId and there is no default organization to load it into');
      const counts = loadDataset(store, dataset, orgId, baseDir);
      for (const k of Object.keys(total) as (keyof SeedCounts)[]) total[k] += counts[k];
    }
  })();
  return total;
}

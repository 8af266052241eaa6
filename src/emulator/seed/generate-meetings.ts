/**
 * Meetings from QMSum (`qmsum/ALL/<split>/<meeting>.json`) as native
 * notetaker conversations. QMSum has no dates, times, titles or participant
 * lists: dates are synthesized (one meeting a day, series stay in order),
 * turn times follow speaking pace, participants are the distinct speakers.
 *
 * AMI product-design meetings are INTERNAL `product_team` (fireflies), ICSI
 * research meetings INTERNAL `engineering_team` (service notetaker),
 * parliamentary committees EXTERNAL `other` (gong) linked to a CRM account or
 * deal. The two oldest ICSI meetings keep the legacy categories
 * `customer_team` and `investment_team`, as historical conversations may.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { addDays, iso, officeHour, rngFor } from './generate-random.js';
import { emailOf } from './generate-people.js';
import type { SeedConversationInput } from './format.js';

const meetingFile = z.object({
  meeting_transcripts: z.array(z.object({ speaker: z.string(), content: z.string() })),
  topic_list: z.array(z.object({ topic: z.string() })).default([]),
  general_query_list: z.array(z.object({ query: z.string(), answer: z.string() })).default([]),
  specific_query_list: z.array(z.object({ query: z.string(), answer: z.string() })).default([]),
});

/** A CRM record a committee meeting is linked to. */
export interface CrmLink {
  id: string;
  name: string;
  type: 'account' | 'opportunity';
}

export interface MeetingOptions {
  seed: number;
  orgDomain: string;
  /** CRM records external meetings are linked to, picked in turn. */
  crmLinks: readonly CrmLink[];
}

type Domain = 'product' | 'research' | 'committee';

const FIRST_MEETING_MS = Date.parse('2024-01-08T00:00:00Z');
const HISTORICAL_MS = Date.parse('2021-03-01T00:00:00Z');
const LEGACY_CATEGORIES = ['customer_team', 'investment_team'] as const;
/** Speaking pace used to give turns a duration. */
const WORDS_PER_SECOND = 2.5;

function domainOf(meeting: string): Domain {
  if (/^(ES|IS|TS)\d/.test(meeting)) return 'product';
  if (/^B[a-z]{2}\d/.test(meeting)) return 'research';
  return 'committee';
}

/** Drop transcription markup (`{disfmarker}`, `{vocalsound}`…) and the tokeniser's spaces before punctuation. */
export function cleanTurn(text: string): string {
  return text
    .replace(/\{[a-z]+\}/gi, ' ')
    .replace(/\s+([.,?!;:])/g, '$1')
    .replace(/\s+(n't|'s|'re|'ll|'ve|'m|'d)\b/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);

function titleOf(meeting: string, domain: Domain, topic: string | undefined): string {
  const label =
    domain === 'product'
      ? 'Remote control design'
      : domain === 'research'
        ? 'Research group meeting'
        : meeting.startsWith('covid')
          ? 'Special Committee on the COVID-19 Pandemic'
          : 'Children, Young People and Education Committee';
  return `${label}: ${shorten(topic ?? meeting, 60)} (${meeting})`;
}

export function listMeetingFiles(dir: string): string[] {
  const root = join(dir, 'qmsum', 'ALL');
  return readdirSync(root)
    .flatMap((split) => readdirSync(join(root, split)).filter((f) => f.endsWith('.json')).map((f) => join(root, split, f)))
    .sort((a, b) => basename(a).localeCompare(basename(b)));
}

export function generateMeetings(dir: string, options: MeetingOptions): SeedConversationInput[] {
  let researchSeen = 0;
  let committeeSeen = 0;
  return listMeetingFiles(dir).map((path, i) => {
    const meeting = basename(path, '.json');
    const domain = domainOf(meeting);
    const data = meetingFile.parse(JSON.parse(readFileSync(path, 'utf8')));
    const rng = rngFor(options.seed, 'meeting', meeting);
    const legacy = domain === 'research' && researchSeen < LEGACY_CATEGORIES.length ? LEGACY_CATEGORIES[researchSeen] : undefined;
    if (domain === 'research') researchSeen++;
    // Alphabetical order keeps a series (ES2002a–d) on consecutive days; legacy ones are years older.
    const startMs = officeHour(rng, addDays(legacy ? HISTORICAL_MS : FIRST_MEETING_MS, legacy ? researchSeen * 7 : i));

    let clock = rng.int(2, 20);
    const transcript = data.meeting_transcripts.flatMap((turn) => {
      const text = cleanTurn(turn.content);
      if (text === '') return [];
      const seconds = Math.max(1, Math.round((text.split(' ').length / WORDS_PER_SECOND) * 10) / 10);
      const entry = { speaker: turn.speaker.trim(), text, startTime: Math.round(clock * 10) / 10, endTime: Math.round((clock + seconds) * 10) / 10 };
      clock += seconds + 0.3;
      return [entry];
    });

    const speakers = [...new Set(data.meeting_transcripts.map((t) => t.speaker.trim()).filter((s) => s !== ''))];
    const series = meeting.replace(/[a-z]$/, '').toLowerCase();
    const participants = speakers.map((name) => ({
      name,
      // Internal meetings: the roles are colleagues at the organization (one mailbox per role and series).
      email: domain === 'committee' ? null : emailOf(`${name} ${series}`, options.orgDomain),
      attended: true,
    }));

    let crm: SeedConversationInput['crm'] = null;
    if (domain === 'committee' && options.crmLinks.length > 0) {
      crm = options.crmLinks[committeeSeen % options.crmLinks.length] ?? null;
      committeeSeen++;
    }
    const category = legacy ?? (domain === 'product' ? 'product_team' : domain === 'research' ? 'engineering_team' : 'other');
    return {
      sourceId: domain === 'product' ? 'fireflies' : domain === 'research' ? 'service' : 'gong',
      remoteId: `qmsum-${meeting}`,
      title: titleOf(meeting, domain, data.topic_list[0]?.topic),
      startTime: iso(startMs),
      type: domain === 'committee' ? 'EXTERNAL' : 'INTERNAL',
      participants,
      crm,
      category,
      summary: {
        overview: data.general_query_list[0]?.answer ?? null,
        topics: data.topic_list.map((t) => t.topic),
        highlights: data.specific_query_list.slice(0, 3).map((q) => ({ question: q.query, answer: q.answer })),
      },
      transcript,
      recording: domain === 'product' ? { audio: true, video: true } : { audio: true },
    };
  });
}

/** A parsed ConversationRequest → what the store keeps and the read side shows. */
import type { z } from 'zod';
import type { conversationRequest } from '../../api/schemas/write.js';
import type { ConversationData, ParticipantData, TranscriptEntryData } from '../store/types.js';

export type ParsedConversation = z.output<typeof conversationRequest>;

const domainOf = (email: string | null | undefined): string | undefined => {
  const at = email?.lastIndexOf('@') ?? -1;
  return email && at >= 0 ? email.slice(at + 1).toLowerCase() : undefined;
};

/**
 * INTERNAL when every participant e-mail shares one domain; EXTERNAL otherwise,
 * including when no participant has an e-mail (nothing proves it internal).
 */
export function conversationType(participants: readonly { email?: string | null }[]): 'INTERNAL' | 'EXTERNAL' {
  const domains = new Set(participants.map((p) => domainOf(p.email)).filter((d): d is string => d !== undefined));
  return domains.size === 1 ? 'INTERNAL' : 'EXTERNAL';
}

/**
 * Absolute sentence timestamps → offsets in seconds from the start. A
 * sentence ends where the next one starts; the last one ends where it starts.
 */
export function transcriptEntries(
  sentences: readonly { speakerId?: string | null; speakerName?: string | null; text: string; timestamp: string }[],
  startMs: number,
): TranscriptEntryData[] {
  const ordered = sentences
    .map((s, index) => ({ s, index, at: Date.parse(s.timestamp) }))
    .sort((a, b) => a.at - b.at || a.index - b.index);
  return ordered.map(({ s, at }, i) => {
    const next = ordered[i + 1];
    const startTime = (at - startMs) / 1000;
    return {
      speaker: s.speakerName || s.speakerId || '',
      text: s.text,
      startTime,
      endTime: next ? (next.at - startMs) / 1000 : startTime,
    };
  });
}

export function conversationData(body: ParsedConversation, recordingMediaId: string | null): ConversationData {
  const startMs = Date.parse(body.startedAt);
  const sentences = body.transcript ?? [];
  const lastSentence = sentences.reduce((max, s) => Math.max(max, Date.parse(s.timestamp)), Number.NEGATIVE_INFINITY);
  const endMs = body.endedAt != null ? Date.parse(body.endedAt) : sentences.length > 0 ? lastSentence : startMs;
  const participants: ParticipantData[] = body.participants.map((p) => ({ name: p.name ?? null, email: p.email ?? null, attended: true }));
  return {
    title: body.displayName === '' ? null : body.displayName,
    startTime: new Date(startMs).toISOString(),
    endTime: new Date(endMs).toISOString(),
    type: conversationType(participants),
    participants,
    crm: null,
    category: null,
    summary: null,
    transcript: sentences.length > 0 ? transcriptEntries(sentences, startMs) : null,
    recordings: recordingMediaId ? { audio: recordingMediaId } : null,
    recordingUrl: body.recordingUrl ?? null,
  };
}

/**
 * Cues → the records of one transcript file: participants from the speakers
 * (merged with a sidecar's people), sentences at absolute times (the cue's
 * offset added to the meeting's start), and the service's limits (10,000
 * sentences, 10 hours, 1 to 1,000 participants) checked here, before
 * anything is sent: a meeting over them is split into parts or skipped, as
 * `onLimit` says, never cut short.
 */
import { nameId } from '../_shared/person-id.js';
import type { Cue, ParseProblem } from './cues.js';
import type { Sidecar } from './sidecar.js';

export const LIMITS = { sentences: 10_000, durationMs: 10 * 3_600_000, participants: 1000 } as const;

export type SpeakerRepair = 'previous' | 'unknown' | 'skip';

export interface MeetingInput {
  /** The file's id: its path relative to the config without the extension. */
  id: string;
  file: string;
  format: string;
  title: string;
  /** The meeting's start, epoch ms. */
  startMs: number;
  startedAtFrom: string;
  /** The meeting's end when known apart from the cues (a sidecar's endedAt), epoch ms. */
  endMs?: number | undefined;
  cues: Cue[];
  sidecar?: Sidecar | undefined;
  missingSpeaker: SpeakerRepair;
  unknownSpeaker: string;
  onLimit: 'split' | 'skip';
}

/** A Person of the service (an id or an e-mail always set). */
export type Participant = { id: string; name: string | null; email: string | null };
export type Sentence = { speakerId: string; speakerName: string; text: string; timestamp: string };

export type MeetingData = {
  id: string;
  file: string;
  format: string;
  title: string;
  startedAt: string;
  endedAt: string | null;
  startedAtFrom: string;
  participants: Participant[];
  sentences: Sentence[];
  part: number;
  parts: number;
};

export interface MeetingResult {
  meetings: MeetingData[];
  problems: ParseProblem[];
  /** Warnings that change nothing (overlapping cues), once per file. */
  notes: string[];
}

/** A speaker known only by name gets a stable id (see nameId). */
export const speakerIdOf = nameId;

const keyOf = (name: string): string => name.trim().toLowerCase();

export function buildMeetings(input: MeetingInput): MeetingResult {
  const problems: ParseProblem[] = [];
  const notes: string[] = [];
  const cues = withSpeakers(input, problems);
  ordered(cues, problems, notes);

  const people = new Map<string, Participant>();
  for (const person of input.sidecar?.participants ?? []) {
    const name = person.name ?? null;
    const email = person.email ?? null;
    const id = person.id ?? email ?? speakerIdOf(name ?? '');
    people.set(keyOf(name ?? email ?? id), { id, name, email });
  }
  const personOf = (speaker: string): Participant => {
    const key = keyOf(speaker);
    let person = people.get(key);
    if (!person) {
      person = { id: speakerIdOf(speaker), name: speaker, email: null };
      people.set(key, person);
    }
    return person;
  };

  type Placed = { cue: Cue; at: number; until: number; person: Participant };
  const placed: Placed[] = cues.map((cue) => ({ cue, at: input.startMs + cue.start, until: input.startMs + (cue.end ?? cue.start), person: personOf(cue.speaker!) }));
  // Mission elapsed time starts before lift-off: the meeting then starts at its first cue.
  const startMs = Math.min(input.startMs, ...placed.map((p) => p.at));

  const chunks: Placed[][] = [];
  let chunk: Placed[] = [];
  let chunkStart = startMs;
  for (const entry of placed) {
    if (chunk.length > 0 && (chunk.length >= LIMITS.sentences || entry.until - chunkStart > LIMITS.durationMs)) {
      chunks.push(chunk);
      chunk = [];
      chunkStart = entry.at;
    }
    chunk.push(entry);
  }
  if (chunk.length > 0) chunks.push(chunk);

  const sidecarPeople = (input.sidecar?.participants ?? []).map((p) => people.get(keyOf(p.name ?? p.email ?? p.id ?? ''))!);
  if (chunks.length > 1 && input.onLimit === 'skip') {
    const over = placed.length > LIMITS.sentences ? `${placed.length} sentences (the service takes ${LIMITS.sentences})` : `more than 10 hours`;
    problems.push({ line: 1, action: 'skipped', reason: `the transcript has ${over}; onLimit: skip (set onLimit: split to send it in parts)` });
    return { meetings: [], problems, notes };
  }
  const meetings: MeetingData[] = [];
  chunks.forEach((entries, index) => {
    const partStart = index === 0 ? startMs : entries[0]!.at;
    const participants = unique([...sidecarPeople, ...entries.map((e) => e.person)]);
    const part = index + 1;
    if (participants.length > LIMITS.participants) {
      problems.push({ line: entries[0]!.cue.line, action: 'skipped', reason: `${chunks.length > 1 ? `part ${part}: ` : ''}${participants.length} participants (the service takes 1 to ${LIMITS.participants})` });
      return;
    }
    const last = index === chunks.length - 1;
    const endMs = Math.max(...entries.map((e) => e.until), last && input.endMs !== undefined ? input.endMs : Number.NEGATIVE_INFINITY);
    const endedAt = endMs > partStart && endMs - partStart <= LIMITS.durationMs ? new Date(endMs).toISOString() : null;
    meetings.push({
      id: part === 1 ? input.id : `${input.id}#part${part}`,
      file: input.file,
      format: input.format,
      title: chunks.length > 1 ? `${input.title} (part ${part} of ${chunks.length})` : input.title,
      startedAt: new Date(partStart).toISOString(),
      endedAt,
      startedAtFrom: input.startedAtFrom,
      participants,
      sentences: entries.map((e) => ({ speakerId: e.person.id, speakerName: e.cue.speaker!, text: e.cue.text, timestamp: new Date(e.at).toISOString() })),
      part,
      parts: chunks.length,
    });
  });
  if (chunks.length > 1) notes.push(`over the service's limits (${placed.length} sentences, ${Math.round((Math.max(...placed.map((p) => p.until)) - startMs) / 60_000)} minutes): sent as ${chunks.length} conversations (onLimit: split)`);
  if (cues.length === 0) problems.push({ line: 1, action: 'skipped', reason: 'no cues with text: nothing to send' });
  return { meetings, problems, notes };
}

function unique(people: Participant[]): Participant[] {
  return [...new Set(people)];
}

/** Every cue with a speaker: a cue without one takes the speaker before it, or `unknownSpeaker`, or is skipped, as `missingSpeaker` says, and is reported. */
function withSpeakers(input: MeetingInput, problems: ParseProblem[]): Cue[] {
  const out: Cue[] = [];
  let previous: string | undefined;
  for (const cue of input.cues) {
    if (cue.speaker) {
      previous = cue.speaker;
      out.push(cue);
      continue;
    }
    if (input.missingSpeaker === 'skip') {
      problems.push({ line: cue.line, action: 'skipped', reason: 'a cue without a speaker (missingSpeaker: skip)' });
      continue;
    }
    const speaker = input.missingSpeaker === 'previous' && previous ? previous : input.unknownSpeaker;
    problems.push({ line: cue.line, action: 'repaired', reason: `a cue without a speaker, given ${JSON.stringify(speaker)} (missingSpeaker: ${input.missingSpeaker})` });
    out.push({ ...cue, speaker });
  }
  return out;
}

/**
 * Cues in time order: one that starts before the cue above it is moved into
 * place and reported as repaired. Overlaps (a cue starting before the one
 * above ends) are how people talk, so they change nothing; they are noted
 * once per file.
 */
function ordered(cues: Cue[], problems: ParseProblem[], notes: string[]): void {
  let latest = Number.NEGATIVE_INFINITY;
  let latestLine = 0;
  const overlapLines: number[] = [];
  let previousEnd = Number.NEGATIVE_INFINITY;
  for (const cue of cues) {
    if (cue.start < latest) {
      problems.push({ line: cue.line, action: 'repaired', reason: `the cue starts before the cue at line ${latestLine}; moved into time order` });
    } else {
      if (cue.start < previousEnd) overlapLines.push(cue.line);
      latest = cue.start;
      latestLine = cue.line;
    }
    previousEnd = Math.max(previousEnd, cue.end ?? cue.start);
  }
  cues.sort((a, b) => a.start - b.start);
  if (overlapLines.length > 0) {
    notes.push(`${overlapLines.length} cue(s) start before the cue above them ends (overlapping speech, kept as is): line ${overlapLines.slice(0, 10).join(', ')}${overlapLines.length > 10 ? ', …' : ''}`);
  }
}

/**
 * What the three transcript formats share once parsed: cues (a start, maybe
 * an end, maybe a speaker, the text) and the problems found on the way, each
 * with its line, so the source reports them rather than dropping them.
 */

export interface Cue {
  /** 1-based line where the cue starts (its timing line, or its text line). */
  line: number;
  /** Offset from the meeting's start, milliseconds (negative before it, as in mission elapsed time). */
  start: number;
  /** Offset of the cue's end, when the format gives one. */
  end?: number;
  /** The speaker's name as written; absent when the cue names none. */
  speaker?: string;
  text: string;
}

export interface ParseProblem {
  line: number;
  action: 'skipped' | 'repaired';
  reason: string;
}

export interface ParsedTranscript {
  cues: Cue[];
  problems: ParseProblem[];
  /** Set when the file is not in the format at all (a .vtt without `WEBVTT`): the whole file is skipped. */
  refused?: string;
}

export interface ParseOptions {
  /** Read a leading `Name: ` of a cue's text as its speaker. */
  speakerPrefix: boolean;
}

/**
 * `hh:mm:ss.ttt`, `mm:ss.ttt`, `hh:mm:ss,ttt` (SRT), `hh:mm:ss`, or
 * `dd:hh:mm:ss` (mission elapsed time), optionally negative; milliseconds,
 * or undefined when it is none of these.
 */
export function parseClock(text: string): number | undefined {
  const match = /^(-)?(\d+(?::\d{1,2}){1,3})(?:[.,](\d{1,3}))?$/.exec(text.trim());
  if (!match) return undefined;
  const parts = match[2]!.split(':').map(Number);
  // The last part is seconds, then minutes, hours, days.
  const units = [1000, 60_000, 3_600_000, 86_400_000];
  let ms = 0;
  for (let i = 0; i < parts.length; i++) {
    const value = parts[parts.length - 1 - i]!;
    if (i < 2 && i < parts.length - 1 && value >= 60) return undefined;
    ms += value * units[i]!;
  }
  if (match[3]) ms += Number(match[3].padEnd(3, '0'));
  return match[1] ? -ms : ms;
}

const SPEAKER_PREFIX = /^([^\s:<>[\](){}"][^:<>[\](){}"]{0,59}?)\s*:\s+(\S.*)$/s;

/**
 * `Alice Smith: hello` → speaker and text. A prefix longer than six words,
 * or one that reads as a time or a URL scheme, is text.
 */
export function splitSpeakerPrefix(text: string): { speaker: string; text: string } | undefined {
  const match = SPEAKER_PREFIX.exec(text);
  if (!match) return undefined;
  const speaker = match[1]!.trim();
  if (speaker.split(/\s+/).length > 6 || /^\d+$/.test(speaker) || /^(https?|mailto|ftp)$/i.test(speaker)) return undefined;
  return { speaker, text: match[2]!.trim() };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', lrm: '\u200e', rlm: '\u200f' };

/** Cue text without markup: tags (`<c.x>`, `<i>`, `<00:01.000>`, SRT `{\an8}`) gone, entities decoded, lines joined by spaces. */
export function plainCueText(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/\{\\[^}]*\}/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s*\n\s*/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/**
 * A subtitle cue's payload → speaker and text: a WebVTT voice span
 * (`<v Alice>`, `<v.loud Alice>`) names the speaker; otherwise, when allowed,
 * a leading `Name: `.
 */
export function cuePayload(payload: string, options: ParseOptions): { speaker?: string; text: string } {
  const voice = /<v(?:\.[^\s>]*)?[ \t]+([^>]+)>/.exec(payload);
  if (voice) return { speaker: voice[1]!.trim(), text: plainCueText(payload) };
  const text = plainCueText(payload);
  if (options.speakerPrefix) {
    const prefixed = splitSpeakerPrefix(text);
    if (prefixed) return prefixed;
  }
  return { text };
}

/** Lines of a text, whatever its line endings. */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Blocks of consecutive non-blank lines, each with the 1-based line it starts on. */
export function blocksOf(lines: readonly string[]): { line: number; lines: string[] }[] {
  const blocks: { line: number; lines: string[] }[] = [];
  let current: { line: number; lines: string[] } | undefined;
  lines.forEach((text, index) => {
    if (text.trim() === '') {
      current = undefined;
      return;
    }
    if (!current) {
      current = { line: index + 1, lines: [] };
      blocks.push(current);
    }
    current.lines.push(text);
  });
  return blocks;
}

/** A cue timing line `start --> end [settings]`, or why it is not one. */
export function parseTiming(line: string): { start: number; end: number } | { error: string } {
  const match = /^\s*(\S+)\s+-->\s+(\S+)(?:\s+.*)?$/.exec(line);
  if (!match) return { error: `not a cue timing line: ${JSON.stringify(line.slice(0, 80))}` };
  const start = parseClock(match[1]!);
  const end = parseClock(match[2]!);
  if (start === undefined || end === undefined) return { error: `unreadable cue time in ${JSON.stringify(line.slice(0, 80))}` };
  if (end < start) return { error: `cue ends (${match[2]}) before it starts (${match[1]})` };
  return { start, end };
}

/**
 * A block whose timing line is at `timingAt` (after an optional identifier),
 * as a cue, or the problem that skips it: a timing line that does not parse,
 * or no text. SRT and WebVTT cues are alike from the timing line on.
 */
export function timedCue(block: { line: number; lines: readonly string[] }, timingAt: number, options: ParseOptions): Cue | ParseProblem {
  const line = block.line + timingAt;
  const timing = parseTiming(block.lines[timingAt]!);
  if ('error' in timing) return { line, action: 'skipped', reason: timing.error };
  const { speaker, text } = cuePayload(block.lines.slice(timingAt + 1).join('\n'), options);
  if (text === '') return { line, action: 'skipped', reason: 'a cue with no text' };
  return { line, start: timing.start, end: timing.end, text, ...(speaker ? { speaker } : {}) };
}

import { utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import transcript from '../../../connectors/sources/transcript/index.js';
import { parseClock, splitSpeakerPrefix } from '../../../connectors/sources/transcript/cues.js';
import { buildMeetings, speakerIdOf } from '../../../connectors/sources/transcript/meeting.js';
import { parseSrt } from '../../../connectors/sources/transcript/srt.js';
import { parseText } from '../../../connectors/sources/transcript/text.js';
import { parseWebVtt } from '../../../connectors/sources/transcript/webvtt.js';
import { dateTimeInName } from '../../../connectors/sources/transcript/sidecar.js';
import { describeSourceConformance } from '../../../src/sdk/index.js';
import type { SkippedInput } from '../../../src/sdk/index.js';
import { fixture, readAll } from './helpers.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/transcript');
const BAD = resolve(import.meta.dirname, '../../fixtures/transcript-bad');
const opts = { speakerPrefix: true };

await describeSourceConformance(transcript, {
  options: { path: '*.{vtt,srt,txt}' },
  baseDir: FIXTURES,
  expectedCount: 5,
  primaryKey: ['id'],
  cursorField: 'modifiedAt',
});

describe('WebVTT (W3C) parsing', () => {
  it('reads voice tags, Name: cues, multi-line cues, hour-less times and cue settings; passes over NOTE, STYLE and REGION', async () => {
    const [record] = await readAll(transcript, { path: 'standup-*.vtt' }, { baseDir: FIXTURES });
    expect(record?.data).toMatchObject({
      id: 'standup-2024-05-01T09-30-00Z',
      startedAt: '2024-05-01T09:30:00.000Z',
      startedAtFrom: 'filename',
      endedAt: '2024-05-01T10:30:02.000Z',
      participants: [
        { id: 'name:ana-lima', name: 'Ana Lima', email: null },
        { id: 'name:bo-chen', name: 'Bo Chen', email: null },
      ],
    });
    expect(record?.data.sentences).toEqual([
      { speakerId: 'name:ana-lima', speakerName: 'Ana Lima', text: "Good morning & welcome. Let's start.", timestamp: '2024-05-01T09:30:00.000Z' },
      { speakerId: 'name:bo-chen', speakerName: 'Bo Chen', text: 'Yesterday I fixed the login bug.', timestamp: '2024-05-01T09:30:04.500Z' },
      { speakerId: 'name:ana-lima', speakerName: 'Ana Lima', text: 'Thanks, Bo. Anything blocking?', timestamp: '2024-05-01T09:30:09.200Z' },
      // No speaker: the one before is carried, and reported (missingSpeaker: previous).
      { speakerId: 'name:ana-lima', speakerName: 'Ana Lima', text: 'Nothing from me.', timestamp: '2024-05-01T09:30:12.500Z' },
      { speakerId: 'name:bo-chen', speakerName: 'Bo Chen', text: 'See you tomorrow.', timestamp: '2024-05-01T10:30:00.000Z' },
    ]);
  });

  it('refuses a file without the WEBVTT header', () => {
    expect(parseWebVtt('00:01.000 --> 00:02.000\nhi\n', opts).refused).toMatch(/WEBVTT/);
  });

  it('names the line of every malformed cue', () => {
    const parsed = parseWebVtt('WEBVTT\n\n00:01.000 --> 00:02.000\n<v A>ok\n\n00:03.000 -> 00:04.000\nx\n\n00:05.000 --> 00:04.000\nx\n\n00:06.000 --> 00:07.000\n<v A></v>\n', opts);
    expect(parsed.cues.map((c) => c.text)).toEqual(['ok']);
    expect(parsed.problems.map((p) => [p.line, p.action])).toEqual([[6, 'skipped'], [9, 'skipped'], [12, 'skipped']]);
  });

  it('reads times with and without hours, and refuses minutes over 59', () => {
    expect(parseClock('01:02.500')).toBe(62_500);
    expect(parseClock('1:00:00.000')).toBe(3_600_000);
    expect(parseClock('00:00:01,250')).toBe(1250);
    expect(parseClock('-00:00:00:10')).toBe(-10_000);
    expect(parseClock('00:61.000')).toBeUndefined();
  });
});

describe('SRT and plain text', () => {
  it('reads SubRip with comma decimals and Name: prefixes', () => {
    const parsed = parseSrt('1\n00:00:01,000 --> 00:00:02,500\nAna: hello\nthere\n\n2\n00:00:03,000 --> 00:00:04,000\n<i>Bo: hi</i>\n', opts);
    expect(parsed.cues).toEqual([
      { line: 2, start: 1000, end: 2500, speaker: 'Ana', text: 'hello there' },
      { line: 7, start: 3000, end: 4000, speaker: 'Bo', text: 'hi' },
    ]);
  });

  it('reads "HH:MM:SS Speaker:", "[00:01:02] Speaker:", "Speaker:" lines, continuations and a time on its own line', () => {
    const parsed = parseText('00:00:05 Ana: one\n[00:01:02] Bo: two\n  and more\nAna: three\n[00:02:00]\nBo: four\n');
    expect(parsed.cues.map((c) => [c.start, c.speaker, c.text])).toEqual([
      [5000, 'Ana', 'one'],
      [62_000, 'Bo', 'two and more'],
      [62_000, 'Ana', 'three'],
      [120_000, 'Bo', 'four'],
    ]);
    // A line that is neither a turn nor a continuation is reported, not joined to the turn above.
    expect(parsed.problems).toEqual([]);
    expect(parseText('garbage first\nAna: hi\n').problems).toEqual([{ line: 1, action: 'skipped', reason: expect.stringContaining('neither') }]);
  });

  it('does not take a time, a URL scheme or a sentence for a speaker', () => {
    expect(splitSpeakerPrefix('https://x.test')).toBeUndefined();
    expect(splitSpeakerPrefix('This is a long sentence with a colon: in it')).toBeUndefined();
    expect(splitSpeakerPrefix('Dr. Ana Lima: hi')).toEqual({ speaker: 'Dr. Ana Lima', text: 'hi' });
  });

  it('reads the NASA Spacelog mission log with elapsed time from its sidecar start', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    const [record] = await readAll(transcript, { path: 'spacelog-mr3-ATG.txt' }, { baseDir: FIXTURES, captured });
    expect(record?.data).toMatchObject({ title: 'Mercury-Redstone 3 (Freedom 7) air-to-ground', startedAtFrom: 'sidecar', startedAt: '1961-05-05T14:34:13.000Z' });
    const sentences = record?.data.sentences as { speakerName: string; timestamp: string }[];
    expect(sentences[1]).toMatchObject({ speakerName: 'P', text: 'Ahh, Roger; lift-off and the clock is started', timestamp: '1961-05-05T14:34:15.000Z' });
    expect(captured.skipped).toEqual([]);
  });
});

describe('meetings', () => {
  it('merges sidecar participants (e-mails) with the speakers, keeps the Harper Valley call\'s offsets, and notes overlapping speech', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    const [record] = await readAll(transcript, { path: 'harper-valley-*.vtt' }, { baseDir: FIXTURES, captured });
    expect(record?.data).toMatchObject({
      title: 'Harper Valley Bank: check balance',
      startedAt: '2020-05-30T17:46:28.540Z',
      participants: [
        { id: 'jennifer@harpervalley.example', name: 'Jennifer', email: 'jennifer@harpervalley.example' },
        { id: 'name:elizabeth-davis', name: 'Elizabeth Davis', email: null },
      ],
    });
    const sentences = record?.data.sentences as { timestamp: string; speakerId: string }[];
    expect(sentences[0]).toMatchObject({ timestamp: '2020-05-30T17:46:30.055Z', speakerId: 'name:elizabeth-davis' });
    expect(sentences).toHaveLength(17);
    expect(captured.warnings.some((w) => /overlapping speech/.test(w))).toBe(true);
  });

  it('gives a name-only speaker the same id everywhere', () => {
    expect(speakerIdOf('Élodie  Martin')).toBe('name:elodie-martin');
    expect(speakerIdOf('Élodie  Martin')).toBe(speakerIdOf('elodie martin'));
    expect(speakerIdOf('王伟')).toMatch(/^name:[0-9a-f]{12}$/);
  });

  it('finds a date-time in a file name, read as UTC without a zone', () => {
    expect(dateTimeInName('standup-2024-05-01T09-30-00Z.vtt')).toBe(Date.parse('2024-05-01T09:30:00Z'));
    expect(dateTimeInName('2024-05-01 09.30.vtt')).toBe(Date.parse('2024-05-01T09:30:00Z'));
    expect(dateTimeInName('sync+0200-2024-05-01T09:30:00+02:00.srt')).toBe(Date.parse('2024-05-01T07:30:00Z'));
    expect(dateTimeInName('notes.txt')).toBeUndefined();
  });

  const cues = (count: number, stepMs: number) => Array.from({ length: count }, (_, i) => ({ line: i + 1, start: i * stepMs, end: i * stepMs + 1, speaker: i % 2 ? 'A' : 'B', text: `t${i}` }));
  const meeting = (n: number, step: number, onLimit: 'split' | 'skip') =>
    buildMeetings({ id: 'm', file: 'm.vtt', format: 'webvtt', title: 'M', startMs: 0, startedAtFrom: 'option', cues: cues(n, step), missingSpeaker: 'previous', unknownSpeaker: 'U', onLimit });

  it('splits a transcript over 10,000 sentences or 10 hours into parts, losing nothing', () => {
    const long = meeting(10_001, 10, 'split');
    expect(long.meetings.map((m) => [m.id, m.sentences.length])).toEqual([['m', 10_000], ['m#part2', 1]]);
    const hours = meeting(3, 6 * 3_600_000, 'split');
    expect(hours.meetings.map((m) => [m.id, m.startedAt, m.sentences.length])).toEqual([
      ['m', '1970-01-01T00:00:00.000Z', 2],
      ['m#part2', '1970-01-01T12:00:00.000Z', 1],
    ]);
    for (const m of hours.meetings) expect(Date.parse(m.endedAt!) - Date.parse(m.startedAt)).toBeLessThanOrEqual(10 * 3_600_000);
  });

  it('skips (and reports) a transcript over the limits with onLimit: skip', () => {
    const skipped = meeting(10_001, 10, 'skip');
    expect(skipped.meetings).toEqual([]);
    expect(skipped.problems).toEqual([{ line: 1, action: 'skipped', reason: expect.stringContaining('10001 sentences') }]);
  });

  it('refuses more than 1,000 participants', () => {
    const many = buildMeetings({ id: 'm', file: 'm', format: 'text', title: 'M', startMs: 0, startedAtFrom: 'option', cues: Array.from({ length: 1001 }, (_, i) => ({ line: i + 1, start: i, speaker: `P${i}`, text: 'x' })), missingSpeaker: 'previous', unknownSpeaker: 'U', onLimit: 'split' });
    expect(many.meetings).toEqual([]);
    expect(many.problems[0]?.reason).toMatch(/1001 participants/);
  });
});

describe('bad input', () => {
  it('counts every malformed cue, missing speaker, reordered cue and invalid byte with its line', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    const [record] = await readAll(transcript, { path: 'broken.vtt', startedAt: '2024-01-01T00:00:00Z' }, { baseDir: BAD, captured });
    expect(captured.skipped.map((s) => [s.origin.line, s.action])).toEqual([
      [18, 'repaired'],
      [6, 'skipped'],
      [9, 'skipped'],
      [12, 'skipped'],
      [20, 'skipped'],
      [14, 'repaired'],
      [17, 'repaired'],
    ]);
    expect((record?.data.sentences as { text: string }[]).map((s) => s.text)).toEqual(['fine', 'out of order caf\ufffd', 'no speaker here']);
  });

  it('skips the file (counted) on invalid UTF-8 with onInvalidEncoding: reject, and on a broken sidecar', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    expect(await readAll(transcript, { path: 'broken.vtt', onInvalidEncoding: 'reject' }, { baseDir: BAD, captured })).toEqual([]);
    expect(captured.skipped).toEqual([{ action: 'skipped', origin: { stream: 'broken.vtt', file: 'broken.vtt', line: 18 }, reason: expect.stringContaining('not valid UTF-8') }]);
    const dir = fixture('transcript-sidecar', { 'a.vtt': 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v A>hi\n', 'a.json': '{"startedAt": 5, "participants": [{}]}' });
    const seen = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    expect(await readAll(transcript, { path: '*' }, { baseDir: dir, captured: seen })).toEqual([]);
    expect(seen.skipped[0]).toMatchObject({ action: 'skipped', origin: { file: 'a.json' } });
  });

  it('falls back to the modification time, warning once per file', async () => {
    const dir = fixture('transcript-mtime', { 'notes.txt': 'Ana: hi\nBo: hello\n' });
    utimesSync(join(dir, 'notes.txt'), new Date('2023-03-03T10:00:00Z'), new Date('2023-03-03T10:00:00Z'));
    const captured = { warnings: [] as string[] };
    const [record] = await readAll(transcript, { path: '*.txt' }, { baseDir: dir, captured });
    expect(record?.data).toMatchObject({ startedAt: '2023-03-03T10:00:00.000Z', startedAtFrom: 'mtime', endedAt: null });
    expect(captured.warnings.filter((w) => /modification time/.test(w))).toHaveLength(1);
    writeFileSync(join(dir, 'notes.txt'), 'Ana: hi\n');
  });
});

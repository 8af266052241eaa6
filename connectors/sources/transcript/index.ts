/**
 * Meeting transcripts, one record per file: WebVTT (`.vtt`), SubRip
 * (`.srt`) and plain text ("HH:MM:SS Speaker: text"), with participants,
 * sentences at absolute times and the meeting's start worked out in this
 * order: the `startedAt` option, a sidecar JSON of the same base name, a
 * date-time in the file name, the file's modification time (warned about).
 * Its default mapping makes `target: { type: conversation }` enough.
 */
import { createHash } from 'node:crypto';
import { basename, extname, relative } from 'node:path';
import { z } from 'zod';
import { listFiles } from '../_shared/files.js';
import { InputProblems } from '../_shared/input-problems.js';
import { invalidEncodingOption } from '../_shared/invalid-encoding.js';
import { decodeUtf8, maxFileBytesOption, readWholeFile } from '../_shared/whole-file.js';
import { FerryError, compareCursorValues, defineSource } from '../../../src/sdk/index.js';
import type { ReadContext, SourceRecord } from '../../../src/sdk/index.js';
import type { ParseOptions, ParsedTranscript } from './cues.js';
import { buildMeetings } from './meeting.js';
import { dateTimeInName, readSidecar, timestampMs } from './sidecar.js';
import type { Sidecar } from './sidecar.js';
import { parseSrt } from './srt.js';
import { parseText } from './text.js';
import { parseWebVtt } from './webvtt.js';

const FORMATS = ['auto', 'webvtt', 'srt', 'text'] as const;

export const options = z.strictObject({
  path: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('A transcript file, a glob or a list of globs, relative to the YAML file (e.g. meetings/**/*.vtt). .json files are sidecars, never transcripts.'),
  format: z
    .enum(FORMATS)
    .default('auto')
    .describe('auto: by extension (.vtt WebVTT, .srt SubRip, anything else plain text); or webvtt, srt, text for every file.'),
  startedAt: z
    .union([z.string().min(1), z.number()])
    .optional()
    .describe('The meeting start for every file (ISO 8601, Unix seconds or ms). Wins over the sidecar, the file name and the modification time.'),
  sidecar: z
    .boolean()
    .default(true)
    .describe('Read <name>.json next to each transcript (startedAt, title, participants with e-mails).'),
  speakerPrefix: z
    .boolean()
    .default(true)
    .describe('Read a cue that starts "Name: " as spoken by Name (as Zoom and note-takers write them). A <v Name> voice tag always names the speaker.'),
  missingSpeaker: z
    .enum(['previous', 'unknown', 'skip'])
    .default('previous')
    .describe('A cue without a speaker: previous (the speaker of the cue before), unknown (unknownSpeaker) or skip. Each is counted in the run summary.'),
  unknownSpeaker: z.string().min(1).default('Unknown speaker').describe('The speaker name given to a cue without one when missingSpeaker is unknown (or no cue before it has one).'),
  onLimit: z
    .enum(['split', 'skip'])
    .default('split')
    .describe("A transcript over the service's limits (10,000 sentences or 10 hours): split it into parts (ids <id>#part2…), or skip it (counted). Never cut short."),
  onInvalidEncoding: invalidEncodingOption.describe('Bytes that are not valid UTF-8: replace (read as U+FFFD, each line counted) or reject (skip the file, counted).'),
  maxFileBytes: maxFileBytesOption,
});
type Options = z.output<typeof options>;

const EXTENSION_FORMAT: Record<string, 'webvtt' | 'srt'> = { '.vtt': 'webvtt', '.webvtt': 'webvtt', '.srt': 'srt' };
/** A version of how records follow from a file, part of dataText (see SourceRecord.dataText). */
const DERIVATION = 'transcript/1';

export default defineSource({
  name: 'transcript',
  options,
  example: { path: 'meetings/*.vtt' },

  targetDefaults: () => ({
    conversation: {
      map: {
        id: 'id',
        displayName: 'title',
        createdAt: 'startedAt',
        startedAt: 'startedAt',
        endedAt: 'endedAt',
        participants: 'participants',
        transcript: 'sentences',
        public: true,
      },
    },
  }),

  keys: () => ({ primaryKey: ['id'], cursorField: 'modifiedAt' }),

  async discover(ctx) {
    const files = await transcriptFiles(ctx.options, ctx.baseDir);
    return [
      {
        name: String(ctx.options.path),
        primaryKey: ['id'],
        cursorCandidates: ['modifiedAt'],
        estimatedCount: files.length,
        fields: [
          { name: 'id', type: 'string' },
          { name: 'file', type: 'string' },
          { name: 'format', type: 'string' },
          { name: 'title', type: 'string' },
          { name: 'startedAt', type: 'datetime' },
          { name: 'endedAt', type: 'datetime', nullable: true },
          { name: 'startedAtFrom', type: 'string' },
          { name: 'participants', type: 'list' },
          { name: 'sentences', type: 'list' },
          { name: 'part', type: 'int' },
          { name: 'parts', type: 'int' },
          { name: 'modifiedAt', type: 'datetime' },
        ],
      },
    ];
  },

  async *read(ctx) {
    const files = await transcriptFiles(ctx.options, ctx.baseDir);
    if (files.length === 0) {
      throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `no transcript files match ${JSON.stringify(ctx.options.path)}`, {
        where: `sync ${ctx.syncName}`,
        hint: `paths resolve against ${ctx.baseDir}`,
      });
    }
    const problems = new InputProblems(ctx, String(ctx.options.path));
    for (const file of files) {
      if (ctx.signal.aborted) return;
      yield* readTranscript(ctx, file, problems);
      problems.finishFile(relative(ctx.baseDir, file));
    }
  },
});

async function transcriptFiles(opts: Options, baseDir: string): Promise<string[]> {
  return (await listFiles(opts.path, baseDir)).filter((file) => extname(file).toLowerCase() !== '.json');
}

function formatOf(file: string, opts: Options): 'webvtt' | 'srt' | 'text' {
  if (opts.format !== 'auto') return opts.format;
  return EXTENSION_FORMAT[extname(file).toLowerCase()] ?? 'text';
}

function parse(format: 'webvtt' | 'srt' | 'text', text: string, parseOptions: ParseOptions): ParsedTranscript {
  if (format === 'webvtt') return parseWebVtt(text, parseOptions);
  if (format === 'srt') return parseSrt(text, parseOptions);
  return parseText(text);
}

const sha = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

async function* readTranscript(ctx: ReadContext<Options>, file: string, problems: InputProblems): AsyncIterable<SourceRecord> {
  const opts = ctx.options;
  const rel = relative(ctx.baseDir, file);
  const stream = String(opts.path);
  const read = await readWholeFile(file, opts.maxFileBytes);
  if ('tooLarge' in read) {
    problems.report(rel, { line: 1, action: 'skipped', reason: `the file is ${read.tooLarge} bytes, over maxFileBytes (${opts.maxFileBytes}); not read` });
    return;
  }
  const decoded = decodeUtf8(read.bytes);
  if (decoded.invalidLines.length > 0 && opts.onInvalidEncoding === 'reject') {
    problems.report(rel, { line: decoded.invalidLines[0]!, action: 'skipped', reason: 'bytes that are not valid UTF-8 (onInvalidEncoding: reject); the file was not read' });
    return;
  }
  for (const line of decoded.invalidLines) problems.report(rel, { line, action: 'repaired', reason: 'bytes not valid UTF-8 replaced by U+FFFD' });

  const format = formatOf(file, opts);
  const parsed = parse(format, decoded.text, { speakerPrefix: opts.speakerPrefix });
  if (parsed.refused) {
    problems.report(rel, { line: 1, action: 'skipped', reason: `${parsed.refused}; the file was not read (set format: to read it as another format)` });
    return;
  }
  for (const problem of parsed.problems) problems.report(rel, problem);

  const sidecarPath = file.slice(0, file.length - extname(file).length) + '.json';
  const sidecarRead = opts.sidecar ? await readSidecar(sidecarPath) : undefined;
  if (sidecarRead && 'error' in sidecarRead) {
    problems.report(relative(ctx.baseDir, sidecarPath), { line: 1, action: 'skipped', reason: `the sidecar of ${rel} is not valid (${sidecarRead.error}); ${rel} was not read` });
    return;
  }
  const sidecar: Sidecar | undefined = sidecarRead?.sidecar;
  const start = meetingStart(opts, sidecar, file, read.modifiedAt);
  if ('error' in start) {
    problems.report(rel, { line: 1, action: 'skipped', reason: start.error });
    return;
  }
  if (start.from === 'mtime') {
    ctx.logger.warn({ file: rel }, `${rel}: no meeting start in the options, a sidecar (${basename(sidecarPath)}) or the file name; using the file's modification time ${new Date(start.ms).toISOString()}`);
  }
  const modifiedAt = new Date(Math.max(read.modifiedAt.getTime(), sidecarRead?.modifiedAt.getTime() ?? 0)).toISOString();
  const after = ctx.incremental?.after;
  if (after && compareCursorValues(modifiedAt, after.value) <= 0) return;

  const id = rel.slice(0, rel.length - extname(rel).length).split('\\').join('/');
  const result = buildMeetings({
    id,
    file: rel,
    format,
    title: sidecar?.title ?? basename(file, extname(file)),
    startMs: start.ms,
    startedAtFrom: start.from,
    endMs: sidecar?.endedAt === undefined ? undefined : timestampMs(sidecar.endedAt),
    cues: parsed.cues,
    sidecar,
    missingSpeaker: opts.missingSpeaker,
    unknownSpeaker: opts.unknownSpeaker,
    onLimit: opts.onLimit,
  });
  for (const problem of result.problems) problems.report(rel, problem);
  for (const note of result.notes) ctx.logger.warn({ file: rel }, `${rel}: ${note}`);
  const basis = `${DERIVATION}\u001f${rel}\u001f${sha(read.bytes)}\u001f${sidecarRead ? sha(sidecarRead.text) : ''}\u001f${start.from === 'mtime' ? start.ms : ''}\u001f${modifiedAt}`;
  for (const meeting of result.meetings) {
    yield {
      data: { ...meeting, modifiedAt },
      origin: { stream, file: rel, line: 1, key: meeting.id },
      cursor: modifiedAt,
      dataText: `${basis}\u001f${meeting.part}`,
    };
  }
}

type Start = { ms: number; from: 'option' | 'sidecar' | 'filename' | 'mtime' } | { error: string };

function meetingStart(opts: Options, sidecar: Sidecar | undefined, file: string, modifiedAt: Date): Start {
  if (opts.startedAt !== undefined) {
    const ms = timestampMs(opts.startedAt);
    return ms === undefined ? { error: `startedAt ${JSON.stringify(opts.startedAt)} is not a date-time` } : { ms, from: 'option' };
  }
  if (sidecar?.startedAt !== undefined) {
    const ms = timestampMs(sidecar.startedAt);
    return ms === undefined ? { error: `the sidecar's startedAt ${JSON.stringify(sidecar.startedAt)} is not a date-time` } : { ms, from: 'sidecar' };
  }
  const named = dateTimeInName(basename(file));
  if (named !== undefined) return { ms: named, from: 'filename' };
  return { ms: modifiedAt.getTime(), from: 'mtime' };
}

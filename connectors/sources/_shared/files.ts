/**
 * File plumbing shared by the built-in file connectors (csv, jsonl): option
 * fragments, glob resolution, and (from text-file.ts) opening a file as a
 * stream of decoded text.
 * Written only against src/sdk, like any plugin.
 */
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import type Iconv from 'iconv-lite';
import { glob, isDynamicPattern } from 'tinyglobby';
import { z } from 'zod';
import { formatBytes } from '../../../src/sdk/bytes.js';
import { FerryError, messageOf, type ConnectorLogger, type IncrementalRead, type SkippedInput } from '../../../src/sdk/index.js';
import { isUtf8Encoding } from './utf8-check.js';

/** `path`: a file or a glob, relative to the YAML file's directory. */
export const pathOption = z.string().min(1);

/** Any encoding iconv-lite knows (utf8, latin1, windows-1252, utf16le, …). */
export const encodingOption = z
  .string()
  // iconv-lite (its codec tables) is loaded only for an encoding other than UTF-8.
  .refine((name) => isUtf8Encoding(name) || (createRequire(import.meta.url)('iconv-lite') as typeof Iconv).encodingExists(name), { message: 'unknown encoding (try utf8, latin1, windows-1252, utf16le)' })
  .default('utf8')
  .describe('Text encoding of the files: any encoding iconv-lite knows (utf8, latin1, windows-1252, utf16le, …).');

/** `auto` decompresses files whose name ends in `.gz`. */
export const compressionOption = z.enum(['auto', 'gzip', 'none']).default('auto');
export type Compression = z.output<typeof compressionOption>;

/**
 * The size of one record a file source reads at most: the service takes
 * bodies of at most 10 MB, so a larger record could never be pushed, and
 * holding it (the value, its mapped body, its JSON) would take many times its
 * size in memory.
 */
export const DEFAULT_MAX_RECORD_BYTES = 10 * 1024 * 1024;

export const maxRecordBytesOption = z
  .number()
  .int()
  .min(1024)
  .default(DEFAULT_MAX_RECORD_BYTES)
  .describe(
    'The largest record (a CSV row, a JSON Lines line) read, in characters of its text (bytes for ASCII); a larger one stops the read with FERRY_SOURCE_RECORD_TOO_LARGE at file:line before it is held in memory. Default 10485760 (10 MiB, the service\'s body limit).',
  );

/** A primary key: one field or several. */
export const primaryKeyOption = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional();

export function toKeyList(key: string | readonly string[] | undefined): string[] | undefined {
  if (key === undefined) return undefined;
  return typeof key === 'string' ? [key] : [...key];
}

export interface InputFile {
  absolute: string;
  /** Relative to baseDir with `/` separators: what origins and `_file` show. */
  relative: string;
}

function toInputFile(baseDir: string, absolute: string): InputFile {
  const rel = relative(baseDir, absolute);
  return { absolute, relative: (rel === '' ? absolute : rel).split(sep).join('/') };
}

/**
 * The files a `path` option names, in sorted order. A path that exists as
 * written is taken literally (file names may contain glob characters);
 * otherwise it is a glob. Nothing matching is an error, not an empty read:
 * an empty read would look like "every record was deleted" to a mirror sync.
 */
export async function resolveFiles(pattern: string, baseDir: string, syncName: string): Promise<InputFile[]> {
  const literal = resolve(baseDir, pattern);
  const literalStat = await stat(literal).catch(() => undefined);
  if (literalStat?.isFile()) return [toInputFile(baseDir, literal)];
  if (literalStat?.isDirectory()) {
    throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `path "${pattern}" is a directory, not a file or glob`, {
      where: `sync ${syncName}`,
      hint: `match the files inside it with a glob, e.g. "${pattern.replace(/\/$/, '')}/*"`,
      details: { path: literal },
    });
  }
  if (isDynamicPattern(pattern)) {
    const matches = await glob(pattern, { cwd: baseDir, absolute: true, onlyFiles: true });
    if (matches.length > 0) {
      return matches
        .map((file) => toInputFile(baseDir, resolve(file)))
        .sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
    }
  }
  throw new FerryError(
    'FERRY_SOURCE_OBJECT_MISSING',
    isDynamicPattern(pattern) ? `no file matches "${pattern}"` : `file "${pattern}" does not exist`,
    {
      where: `sync ${syncName}`,
      hint: `paths resolve against ${baseDir} (the directory of the YAML file that declares the sync)`,
      details: { path: isAbsolute(pattern) ? pattern : literal },
    },
  );
}

/** Fail early, with the file named, when a matched file cannot be read. */
export async function assertReadable(file: InputFile, syncName: string): Promise<void> {
  try {
    await access(file.absolute, constants.R_OK);
  } catch (cause) {
    throw new FerryError('FERRY_SOURCE_UNREACHABLE', `cannot read ${file.relative}`, {
      where: `sync ${syncName}`,
      cause,
      hint: 'check the file permissions',
    });
  }
}

import { isGzip } from './text-file.js';

export { isGzip, openText, withoutGz } from './text-file.js';

/** What a file parser needs from the connector context. */
export interface ParseContext {
  signal: AbortSignal;
  logger: ConnectorLogger;
  syncName: string;
  reportSkipped?: ((input: SkippedInput) => void) | undefined;
  /** The primary key the records are emitted with, when there is one: a parser that works out keys itself (a parse thread) uses it. */
  primaryKey?: readonly string[] | undefined;
  /** Set when the read is incremental (each record's cursor is read from its data at once). */
  incremental?: IncrementalRead | undefined;
}

const SILENT: ConnectorLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The parse context for discover(), which only samples: what the sampled rows
 * contain (a ragged row, invalid bytes) is warned about and counted once, by
 * read(), not here as well.
 */
export function sampling(ctx: { signal: AbortSignal; syncName: string }): ParseContext {
  return { signal: ctx.signal, syncName: ctx.syncName, logger: SILENT };
}

export { LineSplitter, type TextLine } from './line-splitter.js';

/** Files bigger than this are not line-counted for an estimate. */
export const ESTIMATE_MAX_BYTES = 50 * 1024 * 1024;

/**
 * Count newline-terminated lines of an uncompressed file (an estimate for
 * progress bars: quoted multi-line fields count extra). Undefined when the
 * file is compressed or larger than {@link ESTIMATE_MAX_BYTES}.
 */
export async function countLines(file: string, compression: Compression): Promise<number | undefined> {
  if (isGzip(file, compression)) return undefined;
  const info = await stat(file);
  if (info.size > ESTIMATE_MAX_BYTES) return undefined;
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let index = chunk.indexOf(10);
    while (index !== -1) {
      lines += 1;
      index = chunk.indexOf(10, index + 1);
    }
    if (chunk.length > 0) last = chunk[chunk.length - 1] ?? 10;
  }
  // A last line without a newline is still a line.
  return info.size > 0 && last !== 10 ? lines + 1 : lines;
}

/**
 * Re-throw what a read loop caught as a FerryError naming file and line; an
 * abort is re-thrown as the signal's reason so callers can tell it apart.
 */
export function readFailure(error: unknown, where: string, syncName: string, signal: AbortSignal, maxRecordBytes?: number): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof FerryError) return error;
  const tooLarge = recordTooLarge(error, where, syncName, maxRecordBytes);
  if (tooLarge !== undefined) return tooLarge;
  const message = messageOf(error);
  return new FerryError('FERRY_SOURCE_READ_FAILED', `reading ${where} failed: ${message}`, {
    where: `${where} (sync ${syncName})`,
    cause: error,
  });
}

/** The parsers' "record above the limit" errors: csv-parse's max_record_size, the line splitter's limit. */
const TOO_LARGE_CODES = new Set(['CSV_MAX_RECORD_SIZE', 'LINE_TOO_LONG']);

/**
 * FERRY_SOURCE_RECORD_TOO_LARGE for a parser's "record above the limit"
 * error (`where` is file:line; a line the error carries is used instead),
 * else undefined.
 */
function recordTooLarge(error: unknown, where: string, syncName: string, maxRecordBytes: number | undefined): FerryError | undefined {
  const { code, line } = (error ?? {}) as { code?: unknown; line?: unknown };
  if (typeof code !== 'string' || !TOO_LARGE_CODES.has(code)) return undefined;
  const at = typeof line === 'number' ? `${where.replace(/:\d+$/, '')}:${line}` : where;
  const limit = maxRecordBytes === undefined ? 'the limit' : `maxRecordBytes (${maxRecordBytes} characters, ${formatBytes(maxRecordBytes)})`;
  return new FerryError('FERRY_SOURCE_RECORD_TOO_LARGE', `the record at ${at} is larger than ${limit}; the read stopped before holding more of it`, {
    where: `${at} (sync ${syncName})`,
    hint: 'the service takes request bodies of at most 10 MB, so such a record cannot be pushed whole: shorten or split the value at the source, or leave it out of the mapping and raise source.maxRecordBytes',
    cause: error,
  });
}

/**
 * Every file matching one or several globs, absolute and sorted; an empty
 * list when none match (the caller decides whether that is an error).
 */
export async function listFiles(patterns: string | readonly string[], baseDir: string): Promise<string[]> {
  const list = typeof patterns === 'string' ? [patterns] : [...patterns];
  const found = await glob(list, { cwd: baseDir, absolute: true, onlyFiles: true, expandDirectories: false });
  return found.map((f) => resolve(f)).sort();
}

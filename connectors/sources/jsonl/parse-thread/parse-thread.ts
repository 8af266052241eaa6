/**
 * A JSON Lines file read on a parse thread (parse-worker.ts). The thread
 * does what the run's thread would do to a line until its data is needed:
 * it finds the line, parses it (so a malformed line is reported where it
 * is, as without a thread) and works out the record's primary key. It
 * sends the lines' text, not their values: a value crossing threads costs
 * the reader about two-thirds of parsing the text again, while a record a
 * re-run finds unchanged by its text is never parsed in the run's thread
 * at all (see JsonLineRow). The text of a chunk's lines crosses as one
 * string, which costs a copy, not an object per line.
 */
import { availableParallelism } from 'node:os';
import { ParseThread, THREAD_FROM_BYTES, threadFromBytesSetting as settingOf } from '../../_shared/parse-thread/parse-thread.js';
import type { JsonlOptions } from '../options.js';

/** What the thread is given. */
export interface JsonlThreadInput {
  path: string;
  options: Pick<JsonlOptions, 'encoding' | 'compression' | 'maxRecordBytes'>;
  /** The relative path to add as `_file` (includeFileName), or undefined. */
  fileField: string | undefined;
  primaryKey: readonly string[] | undefined;
}

/** The lines that are not blank of one chunk of the file, as the thread sends them. */
export interface LineBatch {
  /** The lines' text, each ended by a newline (which no line's text holds). */
  text: string;
  /** Each line's number in the file. */
  lines: number[];
  /** Each line's primary-key text; null without a primary key (or for a line that is not valid JSON). */
  keys: (string | null)[] | null;
  /** The lines that are not valid JSON: their index here, and the parse error's message. */
  invalid: [index: number, reason: string][] | null;
}

/**
 * Bytes a JSON file is read in, on a parse thread or not: the line splitter
 * hands out one line at a time whatever the chunk, so a larger read makes
 * no longer piece of work; it makes fewer trips to the file. In the run's
 * own thread, 16 KiB reads (the CSV parser's) left a no-op re-run of 200,000
 * deal lines waiting for the next one about a fifth of the time: 2.85-2.87x
 * readline + JSON.parse against 2.44-2.49x at 64 KiB (2.59-2.76x at 256 KiB,
 * whose lines hold on to larger chunks).
 */
export const JSON_READ_BYTES = 64 * 1024;

/** Line batches ({@link JSON_READ_BYTES} read each) per message: about 500 lines of a typical file. */
export const BATCHES_PER_MESSAGE = 2;

/**
 * The size from which a JSON Lines file gets a parse thread, as
 * `FERRY_JSONL_PARSE_THREAD` says (see the shared setting). Left to ferry
 * (`auto`), only where a core is to spare beyond the run's own thread and
 * the one the state store and the collector share: the thread halves the
 * run's own CPU on a re-run, but adds to the process's (the line is parsed
 * there and its text posted, and a first run parses it again), so on two
 * cores it gains nothing (docs/performance.md).
 */
export function threadFromBytesSetting(env: NodeJS.ProcessEnv = process.env, cores: number = availableParallelism()): number {
  return settingOf('FERRY_JSONL_PARSE_THREAD', 'JSON Lines', env, cores > 2 ? THREAD_FROM_BYTES : Number.POSITIVE_INFINITY);
}

/** Starts reading the file on a thread at once; `signal` aborts the read. */
export function startJsonlParseThread(input: JsonlThreadInput, signal: AbortSignal): ParseThread<LineBatch> {
  return new ParseThread<LineBatch>({ importMetaUrl: import.meta.url, worker: 'parse-worker', input, format: 'JSON Lines' }, signal);
}

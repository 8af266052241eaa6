/**
 * The byte-to-values half of reading a CSV file: the file opened as text
 * (gunzipped, checked, decoded) and piped into csv-parse. The same in the
 * run's own thread and on a parse thread (parse-worker.ts).
 */
import { pipeline } from 'node:stream';
import { parse, type Parser } from 'csv-parse';
import { openText } from '../_shared/text-file.js';
import { readableOrEnded } from '../_shared/readable.js';
import type { Utf8Check } from '../_shared/utf8-check.js';
import type { CsvOptions } from './options.js';

/** What the parse needs of the source's options (plain data: it crosses to a parse thread). */
export type CsvParseOptions = Pick<CsvOptions, 'delimiter' | 'quote' | 'escape' | 'relaxQuotes' | 'encoding' | 'compression' | 'maxRecordBytes'>;

/** What a CSV parse thread (parse-worker.ts) is given. */
export interface CsvThreadInput {
  path: string;
  options: CsvParseOptions;
}

/**
 * A parser of the file's rows as arrays of values, fed from the file. Its
 * read() gives one row at a time; errors of the file, the decoder or the
 * parse end it with that error.
 */
export function openCsvParser(absolutePath: string, options: CsvParseOptions, io: { signal?: AbortSignal; check?: Utf8Check | undefined }): Parser {
  const parser = parse({
    delimiter: options.delimiter,
    quote: options.quote === false ? null : options.quote,
    escape: options.escape ?? (options.quote === false ? null : options.quote),
    // Column counts are checked by the reader, so that a ragged row is kept rather than fatal.
    relax_column_count: true,
    relax_quotes: options.relaxQuotes,
    // Blank lines come through as [''] and are skipped by the reader, which keeps
    // line counting exact without csv-parse's `info` (4x slower).
    skip_empty_lines: false,
    bom: true,
    // A larger row stops the parse before more of it is held (FERRY_SOURCE_RECORD_TOO_LARGE).
    max_record_size: options.maxRecordBytes,
  });
  const text = openText(absolutePath, { encoding: options.encoding, compression: options.compression, ...io });
  pipeline(text, parser, () => {
    // Errors surface through the parser (its 'error', and read() ending).
  });
  return parser;
}

/** A file's rows as arrays of values: parsed here, or on a parse thread (parse-thread.ts). */
export interface CsvValues {
  /** The next row at hand, or null when none is (then {@link wait}). */
  read(): string[] | null;
  /** Resolves once read() may give a row (false) or the file has ended (true); rejects with the read's error. */
  wait(): Promise<boolean>;
  /** Stops the read (early end, or after an error). */
  destroy(): void;
}

/** {@link CsvValues} of a parser in this thread. */
export function parserValues(parser: Parser): CsvValues {
  return {
    read: () => parser.read() as string[] | null,
    wait: () => readableOrEnded(parser),
    destroy: () => parser.destroy(),
  };
}

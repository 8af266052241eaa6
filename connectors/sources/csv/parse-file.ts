/**
 * Stream one CSV file into records keyed by column name, with the line each
 * record starts on.
 */
import { hash } from 'node:crypto';
import { pipeline } from 'node:stream';
import { parse } from 'csv-parse';
import type { SourceValue } from '../../../src/sdk/index.js';
import type { FileRow } from '../_shared/emit.js';
import { openText, readFailure, type InputFile, type ParseContext } from '../_shared/files.js';
import { InvalidEncodingGuard } from '../_shared/invalid-encoding.js';
import { readableOrEnded } from '../_shared/readable.js';
import type { CsvOptions } from './options.js';

/** How many mismatched rows per file are warned about one by one. */
const WARN_EACH = 10;

const INT = /^[+-]?(?:0|[1-9]\d*)$/;
const DOUBLE = /^[+-]?(?:0|[1-9]\d*)?(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function castValue(text: string): SourceValue {
  if (INT.test(text)) {
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : text;
  }
  if (text !== '' && /\d/.test(text) && DOUBLE.test(text)) {
    const number = Number(text);
    return Number.isFinite(number) ? number : text;
  }
  if (text === 'true' || text === 'TRUE' || text === 'True') return true;
  if (text === 'false' || text === 'FALSE' || text === 'False') return false;
  return text;
}

/** Line breaks inside a record's (quoted) values; `\r\n` counts once. */
function lineBreaks(values: readonly string[]): number {
  let count = 0;
  for (const value of values) {
    if (value.includes('\n') || value.includes('\r')) count += value.match(/\r\n|\r|\n/g)?.length ?? 0;
  }
  return count;
}

/** Unique, non-empty column names: blanks become column_<n>, repeats get _2, _3… */
export function normalizeHeader(names: readonly string[], trim: boolean): string[] {
  const seen = new Map<string, number>();
  return names.map((raw, index) => {
    const base = (trim ? raw.trim() : raw) || `column_${index + 1}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  });
}

/** The header's digest, for dataText: fixed length (or "-"), so it never runs into the values that follow. */
function printOf(header: readonly string[]): string {
  return hash('sha256', JSON.stringify(header), 'base64');
}

/**
 * The values as one text that tells them apart: their count, then each
 * after a NUL. A value with a NUL of its own would make that ambiguous: such
 * a record gives no text (ferry then hashes its data). Joining costs far
 * less than JSON, which scans every value for characters to escape.
 */
function valuesText(values: readonly string[]): string | undefined {
  for (let i = 0; i < values.length; i++) if (values[i]!.includes('\u0000')) return undefined;
  return `${values.length}\u0000${values.join('\u0000')}`;
}

export interface CsvFileRow extends FileRow {
  /** The header in effect (for discover). */
  columns: readonly string[];
}

/**
 * Parse one file. Rows whose column count differs from the header are kept
 * (missing columns absent, surplus values under `_extra`) and, unless
 * `relaxColumnCount`, reported as repaired and warned about with file:line.
 * Bytes not valid in the encoding are handled as `onInvalidEncoding` says.
 */
export async function* parseCsvFile(file: InputFile, options: CsvOptions, context: ParseContext): AsyncGenerator<CsvFileRow> {
  const { signal, logger } = context;
  signal.throwIfAborted();
  const parser = parse({
    delimiter: options.delimiter,
    quote: options.quote === false ? null : options.quote,
    escape: options.escape ?? (options.quote === false ? null : options.quote),
    // Column counts are checked here, so that a ragged row is kept rather than fatal.
    relax_column_count: true,
    relax_quotes: options.relaxQuotes,
    // Blank lines come through as [''] and are skipped below, which keeps
    // line counting exact without csv-parse's `info` (4x slower).
    skip_empty_lines: false,
    bom: true,
  });
  const encoding = new InvalidEncodingGuard({ ...context, file: file.relative, stream: options.path, encoding: options.encoding, mode: options.onInvalidEncoding });
  const text = openText(file.absolute, { encoding: options.encoding, compression: options.compression, signal, check: encoding.check });
  pipeline(text, parser, () => {
    // Errors surface through the parser's iteration below.
  });

  let header = Array.isArray(options.header) ? normalizeHeader(options.header, options.trim) : undefined;
  // A record's data follows from the header and its values (and the options, which ferry hashes
  // alongside), so the header's digest and the values are its dataText: no object serialised.
  let headerPrint = header === undefined ? '-' : printOf(header);
  // Once per file, not per record.
  const convert = (raw: string): SourceValue => {
    const value = options.trim ? raw.trim() : raw;
    return options.cast ? castValue(value) : value;
  };
  // csv-parse's own line counter counts a CRLF inside quotes twice, so each
  // record starts on the line after the previous one ended, and ends after
  // the line breaks inside its own (quoted) values.
  let previousEnd = 0;
  let line = 0;
  let mismatched = 0;
  try {
    for (;;) {
      // Rows the parser has buffered are taken without a promise each; it is awaited only when it has none.
      const values = parser.read() as string[] | null;
      if (values === null) {
        if (await readableOrEnded(parser)) break;
        continue;
      }
      signal.throwIfAborted();
      line = previousEnd + 1;
      previousEnd = line + lineBreaks(values);
      encoding.before(previousEnd);
      if (options.skipEmptyLines && values.length === 1 && values[0] === '') continue;

      if (header === undefined) {
        if (options.header === true) {
          header = normalizeHeader(values, options.trim);
          headerPrint = printOf(header);
          continue;
        }
      }
      const columns = header ?? values.map((_, index) => `column_${index + 1}`);
      const data: Record<string, SourceValue> = {};
      const shared = Math.min(columns.length, values.length);
      for (let index = 0; index < shared; index += 1) data[columns[index]!] = convert(values[index]!);
      if (values.length > columns.length) data._extra = values.slice(columns.length).map(convert);
      if (values.length !== columns.length && !options.relaxColumnCount) {
        mismatched += 1;
        context.reportSkipped?.({
          action: 'repaired',
          origin: { stream: options.path, file: file.relative, line },
          reason: `${values.length} columns where the header has ${columns.length}`,
        });
        if (mismatched <= WARN_EACH) {
          logger.warn(
            { file: file.relative, line, expected: columns.length, found: values.length },
            `${file.relative}:${line}: ${values.length} columns where the header has ${columns.length}; row kept` +
              (values.length > columns.length ? ' with the surplus under _extra' : ' with the missing columns empty'),
          );
        }
      }
      const row: CsvFileRow = { data, file: file.relative, line, columns };
      const text = valuesText(values);
      if (text !== undefined) row.dataText = headerPrint + text;
      yield row;
    }
    encoding.finish();
  } catch (error) {
    throw readFailure(error, `${file.relative}:${line + 1}`, context.syncName, signal);
  } finally {
    parser.destroy();
  }
  if (mismatched > WARN_EACH) {
    logger.warn(
      { file: file.relative, rows: mismatched },
      `${file.relative}: ${mismatched} rows in all had a column count different from the header (set relaxColumnCount: true if that is expected)`,
    );
  }
}

/**
 * Stream one CSV file into records keyed by column name, with the line each
 * record starts on.
 */
import { hash } from 'node:crypto';
import { statSync } from 'node:fs';
import { FerryError, type SourceValue } from '../../../src/sdk/index.js';
import type { FileRow } from '../_shared/emit.js';
import { readFailure, type InputFile, type ParseContext } from '../_shared/files.js';
import { InvalidEncodingGuard, type EncodingScope } from '../_shared/invalid-encoding.js';
import { BufferedRows } from '../_shared/buffered-rows.js';
import type { CsvOptions } from './options.js';
import { startCsvParseThread, threadFromBytesSetting } from './parse-thread/parse-thread.js';
import { openCsvParser, parserValues, type CsvValues } from './parser.js';

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

function convert(raw: string, trim: boolean, cast: boolean): SourceValue {
  const value = trim ? raw.trim() : raw;
  return cast ? castValue(value) : value;
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

/** {@link scanJoined}'s findings, as bits. */
const HAS_LINE_BREAK = 1;
const HAS_OWN_NUL = 2;

/**
 * One pass over a row's values joined with NULs: whether a value holds a
 * line break (then {@link lineBreaks} counts them), and whether one holds a
 * NUL of its own (more NULs than the separators). Two `includes` per value
 * and one more for NULs cost several times this loop.
 */
function scanJoined(joined: string, separators: number): number {
  let nuls = 0;
  let found = 0;
  for (let i = 0; i < joined.length; i++) {
    const c = joined.charCodeAt(i);
    if (c > 13) continue;
    if (c === 0) nuls++;
    else if (c === 10 || c === 13) found = HAS_LINE_BREAK;
  }
  return nuls === separators ? found : found | HAS_OWN_NUL;
}

/**
 * The values as one text that tells them apart: their count, then each
 * after a NUL. A value with a NUL of its own would make that ambiguous: such
 * a record gives no text (ferry then hashes its data). Joining costs far
 * less than JSON, which scans every value for characters to escape.
 */
function valuesText(values: readonly string[], joined: string, found: number): string | undefined {
  return (found & HAS_OWN_NUL) === 0 ? `${values.length}\u0000${joined}` : undefined;
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
 * Nothing is opened until the rows are first asked for. A file of
 * `threadFromBytes` or more (by default as FERRY_CSV_PARSE_THREAD says) is
 * read and parsed on a parse thread (parse-thread.ts); the rows are the same.
 */
export function parseCsvFile(file: InputFile, options: CsvOptions, context: ParseContext, threadFromBytes: number = threadFromBytesSetting()): CsvFileRows {
  return new CsvFileRows(file, options, context, threadFromBytes);
}

/**
 * One file's rows. A hand-written iterator rather than an async generator so
 * that the rows csv-parse has already buffered can also be taken without a
 * promise each ({@link takeBuffered}); `next()` and `takeBuffered()` share
 * one synchronous step, {@link bufferedRow}.
 */
export class CsvFileRows extends BufferedRows<CsvFileRow> {
  private readonly file: InputFile;
  private readonly options: CsvOptions;
  private readonly context: ParseContext;
  private readonly threadFromBytes: number;
  private values: CsvValues | undefined;
  private encoding: InvalidEncodingGuard | undefined;
  private state: 'new' | 'reading' | 'done' = 'new';
  private header: string[] | undefined;
  // A record's data follows from the header and its values (and the options, which ferry hashes
  // alongside), so the header's digest and the values are its dataText: no object serialised.
  private headerPrint: string;
  // csv-parse's own line counter counts a CRLF inside quotes twice, so each
  // record starts on the line after the previous one ended, and ends after
  // the line breaks inside its own (quoted) values.
  private previousEnd = 0;
  private line = 0;
  private mismatched = 0;
  private keysChecked = false;

  constructor(file: InputFile, options: CsvOptions, context: ParseContext, threadFromBytes: number) {
    super();
    this.threadFromBytes = threadFromBytes;
    this.file = file;
    this.options = options;
    this.context = context;
    this.header = Array.isArray(options.header) ? normalizeHeader(options.header, options.trim) : undefined;
    this.headerPrint = this.header === undefined ? '-' : printOf(this.header);
  }

  protected async nextRow(): Promise<IteratorResult<CsvFileRow>> {
    if (this.state === 'done') return { done: true, value: undefined };
    try {
      const values = this.values ?? this.start();
      for (;;) {
        // Rows the parser has buffered are taken without a promise each; it is awaited only when it has none.
        const row = this.bufferedRow(values);
        if (row !== undefined) return { done: false, value: row };
        if (await values.wait()) break;
      }
      this.context.signal.throwIfAborted();
      this.encoding!.finish();
    } catch (error) {
      throw this.fail(error);
    }
    this.close();
    if (this.mismatched > WARN_EACH) {
      this.context.logger.warn(
        { file: this.file.relative, rows: this.mismatched },
        `${this.file.relative}: ${this.mismatched} rows in all had a column count different from the header (set relaxColumnCount: true if that is expected)`,
      );
    }
    return { done: true, value: undefined };
  }

  protected heldRowStep(): (() => CsvFileRow | undefined) | undefined {
    const values = this.values;
    if (this.state !== 'reading' || values === undefined) return undefined;
    return () => this.bufferedRow(values);
  }

  private start(): CsvValues {
    const { file, options, context } = this;
    const { signal } = context;
    signal.throwIfAborted();
    const scope: EncodingScope = { ...context, file: file.relative, stream: options.path, encoding: options.encoding, mode: options.onInvalidEncoding };
    const bytes = this.threadedBytes();
    if (bytes !== undefined) {
      // Once per large file, so that a run's log tells which files were read beside the run (and how to stop it).
      context.logger.debug({ file: file.relative, bytes }, `${file.relative}: parsed on a parse thread (FERRY_CSV_PARSE_THREAD=off parses it in the run's thread)`);
      const thread = startCsvParseThread(file.absolute, options, signal);
      this.values = thread;
      this.encoding = new InvalidEncodingGuard(scope, thread);
    } else {
      const encoding = new InvalidEncodingGuard(scope);
      this.values = parserValues(openCsvParser(file.absolute, options, { signal, check: encoding.check }));
      this.encoding = encoding;
    }
    this.state = 'reading';
    return this.values;
  }

  /** The file's size when it is large enough for a parse thread, else undefined (one that cannot be looked at is read here, and fails here). */
  private threadedBytes(): number | undefined {
    if (!Number.isFinite(this.threadFromBytes)) return undefined;
    try {
      const { size } = statSync(this.file.absolute);
      return size >= this.threadFromBytes ? size : undefined;
    } catch {
      return undefined;
    }
  }

  /** The next row among those the parser has buffered (header and skipped blank lines consumed on the way), or undefined when it has none. Throws as the read would. */
  private bufferedRow(parsed: CsvValues): CsvFileRow | undefined {
    const { options, context, file } = this;
    for (;;) {
      const values = parsed.read();
      if (values === null) return undefined;
      context.signal.throwIfAborted();
      const line = (this.line = this.previousEnd + 1);
      const joined = values.join('\u0000');
      const found = scanJoined(joined, values.length - 1);
      this.previousEnd = (found & HAS_LINE_BREAK) === 0 ? line : line + lineBreaks(values);
      this.encoding!.before(this.previousEnd);
      if (options.skipEmptyLines && values.length === 1 && values[0] === '') continue;

      if (this.header === undefined && options.header === true) {
        this.header = normalizeHeader(values, options.trim);
        this.headerPrint = printOf(this.header);
        continue;
      }
      const columns = this.header ?? values.map((_, index) => `column_${index + 1}`);
      if (!this.keysChecked) this.checkKeyColumns(columns);
      const data: Record<string, SourceValue> = {};
      const shared = Math.min(columns.length, values.length);
      const { trim, cast } = options;
      for (let index = 0; index < shared; index += 1) data[columns[index]!] = convert(values[index]!, trim, cast);
      if (values.length > columns.length) data._extra = values.slice(columns.length).map((value) => convert(value, trim, cast));
      if (values.length !== columns.length && !options.relaxColumnCount) this.reportMismatch(line, columns.length, values.length);
      const row: CsvFileRow = { data, file: file.relative, line, columns };
      const text = valuesText(values, joined, found);
      if (text !== undefined) row.dataText = this.headerPrint + text;
      return row;
    }
  }

  /** A primaryKey column the file does not have would leave every record without a key, unseen: refuse it. */
  private checkKeyColumns(columns: readonly string[]): void {
    this.keysChecked = true;
    const key = this.options.primaryKey;
    const missing = (key === undefined ? [] : typeof key === 'string' ? [key] : key).filter((name) => !columns.includes(name));
    if (missing.length === 0) return;
    throw new FerryError(
      'FERRY_SOURCE_OBJECT_MISSING',
      `primaryKey ${missing.map((name) => `"${name}"`).join(', ')} is not a column of ${this.file.relative} (columns: ${columns.join(', ')})`,
      { where: `${this.file.relative}:${this.line}`, hint: 'primaryKey names the column(s) that identify a row: fix the name (ferry discover <sync> lists the columns)' },
    );
  }

  private reportMismatch(line: number, expected: number, found: number): void {
    const { file, options, context } = this;
    this.mismatched += 1;
    context.reportSkipped?.({
      action: 'repaired',
      origin: { stream: options.path, file: file.relative, line },
      reason: `${found} columns where the header has ${expected}`,
    });
    if (this.mismatched <= WARN_EACH) {
      context.logger.warn(
        { file: file.relative, line, expected, found },
        `${file.relative}:${line}: ${found} columns where the header has ${expected}; row kept` +
          (found > expected ? ' with the surplus under _extra' : ' with the missing columns empty'),
      );
    }
  }

  /** Ends the read after `error`, and gives what to throw for it. */
  protected fail(error: unknown): unknown {
    this.close();
    return readFailure(error, `${this.file.relative}:${this.previousEnd + 1}`, this.context.syncName, this.context.signal, this.options.maxRecordBytes);
  }

  protected close(): void {
    this.state = 'done';
    this.values?.destroy();
  }
}

/**
 * Stream one JSON Lines or JSON file into records with the line each starts on.
 */
import { statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { FerryError, messageOf, type SourceData } from '../../../src/sdk/index.js';
import type { FileRow } from '../_shared/emit.js';
import { LineSplitter, openText, readFailure, withoutGz, type InputFile, type ParseContext, type TextLine } from '../_shared/files.js';
import { InvalidEncodingGuard, type InvalidLines } from '../_shared/invalid-encoding.js';
import type { ParseThread } from '../_shared/parse-thread/parse-thread.js';
import { JsonSplitError, JsonSplitter, type JsonPiece } from './json-splitter.js';
import { JsonPointerSplitter, type PointerPiece } from './json-pointer-splitter.js';
import { readableOrEnded } from '../_shared/readable.js';
import { BufferedRows } from '../_shared/buffered-rows.js';
import type { JsonlOptions } from './options.js';
import { parsePointer, select } from './pointer.js';
import { JSON_READ_BYTES, startJsonlParseThread, threadFromBytesSetting, type LineBatch } from './parse-thread/parse-thread.js';
import { recordData, valueText } from './record-data.js';

/** How many skipped lines per file are warned about one by one. */
const WARN_EACH = 10;

export function formatOf(file: string, format: JsonlOptions['format']): 'json' | 'jsonl' {
  if (format !== 'auto') return format;
  return /\.json$/i.test(withoutGz(file)) ? 'json' : 'jsonl';
}

/**
 * Parse one file. A malformed value stops the read with FERRY_SOURCE_READ_FAILED
 * naming file:line, or with `onInvalidLine: skip` is reported as skipped and
 * warned about. Bytes not valid in the encoding are handled as `onInvalidEncoding` says.
 * Nothing is opened until the rows are first asked for. A JSON Lines file
 * of `threadFromBytes` or more (by default as FERRY_JSONL_PARSE_THREAD
 * says) is read on a parse thread (parse-thread.ts), unless the read is
 * incremental or takes a pointer; the rows are the same.
 */
export function parseJsonFile(file: InputFile, options: JsonlOptions, context: ParseContext, threadFromBytes: number = threadFromBytesSetting()): JsonFileRows {
  return new JsonFileRows(file, options, context, threadFromBytes);
}

/** A piece of text holding one JSON value: a line, or an array element or top-level value of a .json file. */
interface Piece {
  text: string;
  line: number;
  key: string | undefined;
  /** The text is the value at the pointer already (a .json file streamed along it). */
  selected?: boolean;
}

/**
 * One file's rows. A hand-written iterator rather than an async generator so
 * that the rows whose text has already been read can also be taken without
 * a promise each ({@link takeBuffered}); `next()` and `takeBuffered()` share
 * one synchronous step, {@link bufferedRow}. The stream is awaited only when
 * the text read so far holds no further row.
 */
export class JsonFileRows extends BufferedRows<FileRow> {
  private readonly values: FileValues;
  private readonly jsonl: boolean;
  private text: Readable | undefined;
  private thread: ParseThread<LineBatch> | undefined;
  /** How rows are read, once the file is open. */
  private reader: FileRead | undefined;
  /** The batch the thread sent that is being read: its next line's index, and where that line's text starts. */
  private batch: LineBatch | undefined;
  private batchIndex = 0;
  private batchOffset = 0;
  private encoding: InvalidEncodingGuard | undefined;
  private lines: LineSplitter | undefined;
  private splitter: JsonSplitter | JsonPointerSplitter | undefined;
  /** Pieces the splitter gave (json format), from {@link pieceIndex} on. */
  private pieces: (JsonPiece | PointerPiece)[] = [];
  private pieceIndex = 0;
  /** Rows of the last piece not handed over yet (a pointer may select an array: several rows per piece), from {@link rowIndex} on. */
  private rows: FileRow[] = [];
  private rowIndex = 0;
  private state: 'new' | 'reading' | 'ending' | 'done' = 'new';
  /** The text has ended and the splitter's rest has been taken in. */
  private drained = false;
  /** The line of the last piece: where a failure is reported. */
  private line = 0;

  constructor(
    private readonly file: InputFile,
    private readonly options: JsonlOptions,
    private readonly context: ParseContext,
    private readonly threadFromBytes: number,
  ) {
    super();
    this.values = new FileValues(file, options, context);
    this.jsonl = formatOf(file.absolute, options.format) === 'jsonl';
  }

  protected async nextRow(): Promise<IteratorResult<FileRow>> {
    if (this.state === 'done') return { done: true, value: undefined };
    try {
      const read = this.reader ?? this.start();
      for (;;) {
        const row = read.row();
        if (row !== undefined) return { done: false, value: row };
        if (await read.wait()) break;
      }
      this.context.signal.throwIfAborted();
      this.encoding!.finish();
    } catch (error) {
      throw this.fail(error);
    }
    this.close();
    this.values.finish();
    return { done: true, value: undefined };
  }

  protected heldRowStep(): (() => FileRow | undefined) | undefined {
    if (this.state !== 'reading' && this.state !== 'ending') return undefined;
    return this.reader?.row;
  }

  /** Opens the file: on a parse thread when it is for one, else here. */
  private start(): FileRead {
    const { context } = this;
    context.signal.throwIfAborted();
    const read = this.startThread() ?? this.startHere();
    this.reader = read;
    this.state = 'reading';
    return read;
  }

  private startHere(): FileRead {
    const { file, options, context } = this;
    const { signal } = context;
    const encoding = this.encodingGuard();
    const text = openText(file.absolute, { encoding: options.encoding, compression: options.compression, signal, check: encoding.check, chunkBytes: JSON_READ_BYTES });
    if (this.jsonl) this.lines = new LineSplitter(options.maxRecordBytes);
    else this.splitter = this.values.pointer?.length ? new JsonPointerSplitter(this.values.pointer) : new JsonSplitter();
    this.text = text;
    this.encoding = encoding;
    return {
      row: () => this.bufferedRow(text),
      wait: async () => {
        if (this.drained) return true;
        if (await readableOrEnded(text)) this.state = 'ending';
        return false;
      },
    };
  }

  /** The file's byte check and what it found; with `found`, the bytes are checked on a parse thread. */
  private encodingGuard(found?: InvalidLines): InvalidEncodingGuard {
    const { file, options, context } = this;
    return new InvalidEncodingGuard({ ...context, file: file.relative, stream: options.path, encoding: options.encoding, mode: options.onInvalidEncoding }, found);
  }

  /** The file's size when this read is for a parse thread, else undefined (one that cannot be looked at is read here, and fails here). */
  private threadedBytes(): number | undefined {
    const { options, context } = this;
    // A pointer may give several records per line, an incremental read needs each record's cursor: both read the data at once.
    if (!this.jsonl || options.pointer !== undefined || context.incremental !== undefined || !Number.isFinite(this.threadFromBytes)) return undefined;
    try {
      const { size } = statSync(this.file.absolute);
      return size >= this.threadFromBytes ? size : undefined;
    } catch {
      return undefined;
    }
  }

  /** Starts the parse thread when the file is for one; undefined when it is read here. */
  private startThread(): FileRead | undefined {
    const bytes = this.threadedBytes();
    if (bytes === undefined) return undefined;
    const { file, options, context } = this;
    // Once per large file, so that a run's log tells which files were read beside the run (and how to stop it).
    context.logger.debug({ file: file.relative, bytes }, `${file.relative}: parsed on a parse thread (FERRY_JSONL_PARSE_THREAD=off parses it in the run's thread)`);
    const thread = startJsonlParseThread(
      {
        path: file.absolute,
        options: { encoding: options.encoding, compression: options.compression, maxRecordBytes: options.maxRecordBytes },
        fileField: options.includeFileName ? file.relative : undefined,
        primaryKey: context.primaryKey,
      },
      context.signal,
    );
    this.thread = thread;
    this.encoding = this.encodingGuard(thread);
    return { row: () => this.threadRow(thread), wait: () => thread.wait() };
  }

  /** The next row the thread has sent (invalid lines consumed on the way), or undefined when it has none at hand. Throws as the read would. */
  private threadRow(thread: ParseThread<LineBatch>): FileRow | undefined {
    for (;;) {
      let batch = this.batch;
      if (batch === undefined || this.batchIndex >= batch.lines.length) {
        batch = thread.read() ?? undefined;
        this.batch = batch;
        this.batchIndex = 0;
        this.batchOffset = 0;
        if (batch === undefined) return undefined;
      }
      this.context.signal.throwIfAborted();
      const index = this.batchIndex++;
      const start = this.batchOffset;
      const end = batch.text.indexOf('\n', start);
      this.batchOffset = end + 1;
      const text = batch.text.slice(start, end);
      const line = (this.line = batch.lines[index]!);
      this.encoding!.before(line);
      const invalid = batch.invalid?.find(([at]) => at === index);
      if (invalid !== undefined) this.values.invalid(line, invalid[1], text);
      else return this.values.lineRow(line, text, batch.keys?.[index] ?? undefined);
    }
  }

  /** The next row in the text read so far (blank, invalid and empty-pointer values consumed on the way), or undefined when it holds none. Throws as the read would. */
  private bufferedRow(text: Readable): FileRow | undefined {
    for (;;) {
      if (this.rowIndex < this.rows.length) return this.rows[this.rowIndex++];
      const piece = this.jsonl ? this.nextLine(text) : this.nextPiece(text);
      if (piece === undefined) return undefined;
      this.rows.length = 0;
      this.rowIndex = 0;
      this.values.parse(piece, this.rows);
    }
  }

  /** The next non-blank line (BOM stripped from line 1), with the encoding settled up to it. */
  private nextLine(text: Readable): Piece | undefined {
    const lines = this.lines!;
    for (;;) {
      const next = lines.take() ?? this.more(text, lines);
      if (next === undefined) return undefined;
      this.context.signal.throwIfAborted();
      const line = (this.line = next.line);
      this.encoding!.before(line);
      const body = valueText(next);
      if (body !== undefined) return { text: body, line, key: undefined };
    }
  }

  /** The next line once the stream's next chunk (or its end) is taken in; undefined when it has none at hand. */
  private more(text: Readable, lines: LineSplitter): TextLine | undefined {
    for (;;) {
      const chunk = this.read(text);
      if (chunk === undefined) return undefined;
      if (chunk === END) lines.end();
      else lines.push(chunk);
      const next = lines.take();
      if (next !== undefined || chunk === END) return next;
    }
  }

  /** The next value of a .json file; every invalid line seen so far is settled first (a value may span lines the splitter does not report). */
  private nextPiece(text: Readable): Piece | undefined {
    const splitter = this.splitter!;
    for (;;) {
      while (this.pieceIndex >= this.pieces.length) {
        const chunk = this.read(text);
        if (chunk === undefined) return undefined;
        this.context.signal.throwIfAborted();
        this.pieces = chunk === END ? splitter.end() : splitter.push(chunk);
        this.pieceIndex = 0;
      }
      const next = this.pieces[this.pieceIndex++]!;
      this.encoding!.before(Number.POSITIVE_INFINITY);
      if ('text' in next) return this.pieceOf(next, false);
      if (next.kind !== 'missing') return this.pieceOf(next.piece, next.kind === 'selected');
      this.line = next.line;
      this.values.nothingAt(next.line);
    }
  }

  private pieceOf(piece: JsonPiece, selected: boolean): Piece {
    this.line = piece.line;
    return { text: piece.text, line: piece.line, key: piece.index === undefined ? undefined : String(piece.index), selected };
  }

  /** The stream's next chunk, END once (after it ended), or undefined when it has nothing at hand. */
  private read(text: Readable): string | typeof END | undefined {
    if (this.drained) return undefined;
    // The decoder's readable side is string-encoded: read() gives all the text it holds, as one string.
    const chunk = text.read() as string | null;
    if (chunk !== null) return chunk;
    if (this.state !== 'ending') return undefined;
    this.drained = true;
    return END;
  }

  /** Ends the read after `error`, and gives what to throw for it. */
  protected fail(error: unknown): unknown {
    this.close();
    const { file, context } = this;
    if (error instanceof JsonSplitError) {
      return readFailure(
        new FerryError('FERRY_SOURCE_READ_FAILED', `invalid JSON at ${file.relative}:${error.line}: ${error.message}`, {
          where: `${file.relative}:${error.line} (sync ${context.syncName})`,
          hint: 'a .json file must hold one JSON value (an array is split into records); use format: jsonl for one value per line',
        }),
        file.relative,
        context.syncName,
        context.signal,
      );
    }
    return readFailure(error, `${file.relative}:${this.line}`, context.syncName, context.signal, this.options.maxRecordBytes);
  }

  protected close(): void {
    this.state = 'done';
    this.rows.length = 0;
    this.rowIndex = 0;
    this.text?.destroy();
    this.thread?.destroy();
    this.batch = undefined;
    this.reader = undefined;
  }
}

/** What {@link JsonFileRows.read} gives once the stream has ended. */
const END = Symbol('end');

/** An open file's rows: here (the text stream) or from a parse thread. */
interface FileRead {
  /** The next row at hand, or undefined when none is. Throws as the read would. */
  row: () => FileRow | undefined;
  /** Resolves once row() may give one (false) or the file has ended (true). */
  wait: () => Promise<boolean>;
}

/**
 * The values of one file turned into rows (through `pointer`, with `_file`),
 * and what could not be: a malformed value fails or is skipped, a value with
 * nothing at the pointer is skipped; each skip is reported and warned about
 * (the first {@link WARN_EACH} one by one, then a total).
 */
class FileValues {
  readonly pointer: ReturnType<typeof parsePointer> | undefined;
  private skipped = 0;
  private missing = 0;
  private readonly textPrefix: string;
  /** `_file`'s value, when includeFileName. */
  private readonly fileField: string | undefined;

  constructor(
    private readonly file: InputFile,
    private readonly options: JsonlOptions,
    private readonly context: ParseContext,
  ) {
    this.pointer = options.pointer === undefined ? undefined : parsePointer(options.pointer);
    // `_file` is in the data but not in the text: the file's name (which holds no NUL) leads the text then.
    this.textPrefix = options.includeFileName ? `${file.relative}\u0000` : '';
    this.fileField = options.includeFileName ? file.relative : undefined;
  }

  /** The row of a line that a parse thread found to be valid JSON, its data parsed only when read. */
  lineRow(line: number, text: string, keyText: string | undefined): FileRow {
    return new JsonLineRow(this.file.relative, line, text, this.textPrefix + text, keyText, this.fileField);
  }

  /** Rows of one piece's JSON text, added to `out`. */
  parse({ text, line, key, selected }: Piece, out: FileRow[]): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.invalid(line, error, text);
      return;
    }
    this.rows(value, line, key, text, out, selected === true);
  }

  /** The value starting on `line` has nothing at the pointer: skipped, reported and warned about. */
  nothingAt(line: number): void {
    const { file, options, context } = this;
    this.missing += 1;
    context.reportSkipped?.({ action: 'skipped', origin: { stream: options.path, file: file.relative, line }, reason: `nothing at pointer "${options.pointer}"` });
    if (this.missing <= WARN_EACH) context.logger.warn({ file: file.relative, line, pointer: options.pointer }, `${file.relative}:${line}: nothing at pointer "${options.pointer}"; skipped`);
  }

  /** Warn about the totals of what was skipped beyond the first few. */
  finish(): void {
    const { file, options, context } = this;
    if (this.skipped > WARN_EACH) context.logger.warn({ file: file.relative, lines: this.skipped }, `${file.relative}: ${this.skipped} invalid JSON values skipped in all`);
    if (this.missing > WARN_EACH) context.logger.warn({ file: file.relative, records: this.missing }, `${file.relative}: ${this.missing} values had nothing at pointer "${options.pointer}"`);
  }

  /** A line that is not valid JSON: stops the read (onInvalidLine: fail), or is skipped, reported and warned about. */
  invalid(line: number, error: unknown, text: string): void {
    const { file, options, context } = this;
    const reason = messageOf(error);
    if (options.onInvalidLine === 'fail') {
      throw new FerryError('FERRY_SOURCE_READ_FAILED', `invalid JSON at ${file.relative}:${line}: ${reason}`, {
        where: `${file.relative}:${line} (sync ${context.syncName})`,
        hint: 'fix the line, or set onInvalidLine: skip to log and skip malformed lines',
        details: { file: file.relative, line, text: text.length > 200 ? `${text.slice(0, 200)}…` : text },
      });
    }
    this.skipped += 1;
    context.reportSkipped?.({ action: 'skipped', origin: { stream: options.path, file: file.relative, line }, reason: `invalid JSON (${reason})` });
    if (this.skipped <= WARN_EACH) context.logger.warn({ file: file.relative, line, reason }, `${file.relative}:${line}: invalid JSON skipped (${reason})`);
  }

  /** `atPointer`: the text is the value at the pointer already, and one record. */
  private rows(value: unknown, line: number, key: string | undefined, text: string, out: FileRow[], atPointer: boolean): void {
    const { pointer } = this;
    if (!pointer || atPointer) {
      const row = this.row(value, line, key);
      // The data follows from the text alone (JSON.parse is deterministic; `_file` is the prefix).
      row.dataText = this.textPrefix + text;
      out.push(row);
      return;
    }
    const selected = select(value, pointer);
    if (selected === undefined) {
      this.nothingAt(line);
      return;
    }
    // No dataText under a pointer: one text gives several records (an array's elements), so it would not tell their data apart.
    if (!Array.isArray(selected)) {
      out.push(this.row(selected, line, key));
      return;
    }
    for (const [index, element] of selected.entries()) out.push(this.row(element, line, key === undefined ? String(index) : `${key}/${index}`));
  }

  private row(value: unknown, line: number, key: string | undefined): FileRow {
    const { file } = this;
    const data = recordData(value, this.fileField);
    return key === undefined ? { data, file: file.relative, line } : { data, file: file.relative, line, key };
  }
}

/**
 * A line a parse thread read: its data is parsed from the text when first
 * read. A re-run that finds the record unchanged by its text (its
 * dataText) never reads it, so never parses it in the run's thread.
 */
class JsonLineRow implements FileRow {
  readonly lazy = true;
  private parsed: SourceData | undefined;

  constructor(
    readonly file: string,
    readonly line: number,
    private readonly text: string,
    readonly dataText: string,
    readonly keyText: string | undefined,
    private readonly fileField: string | undefined,
  ) {}

  get data(): SourceData {
    // The thread parsed this very text without error: it parses here to the same value.
    return (this.parsed ??= recordData(JSON.parse(this.text), this.fileField));
  }
}

/**
 * Stream one JSON Lines or JSON file into records with the line each starts on.
 */
import { FerryError, isRecord, messageOf, type SourceData, type SourceValue } from '../../../src/sdk/index.js';
import type { FileRow } from '../_shared/emit.js';
import { openText, readFailure, readLines, withoutGz, type InputFile, type ParseContext } from '../_shared/files.js';
import { InvalidEncodingGuard } from '../_shared/invalid-encoding.js';
import { JsonSplitError, JsonSplitter } from './json-splitter.js';
import type { JsonlOptions } from './options.js';
import { parsePointer, select } from './pointer.js';

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
 */
export async function* parseJsonFile(file: InputFile, options: JsonlOptions, context: ParseContext): AsyncGenerator<FileRow> {
  const { signal, syncName } = context;
  signal.throwIfAborted();
  const values = new FileValues(file, options, context);
  const encoding = new InvalidEncodingGuard({ ...context, file: file.relative, stream: options.path, encoding: options.encoding, mode: options.onInvalidEncoding });
  const text = openText(file.absolute, { encoding: options.encoding, compression: options.compression, signal, check: encoding.check });
  let line = 0;
  try {
    if (formatOf(file.absolute, options.format) === 'jsonl') {
      for await (const next of readLines(text)) {
        signal.throwIfAborted();
        line = next.line;
        encoding.before(line);
        const body = line === 1 && next.text.charCodeAt(0) === 0xfeff ? next.text.slice(1) : next.text;
        if (body.trim() !== '') yield* values.parse(body, line, undefined);
      }
    } else {
      const splitter = new JsonSplitter();
      const parsePieces = function* (pieces: ReturnType<JsonSplitter['push']>): Generator<FileRow> {
        for (const piece of pieces) {
          line = piece.line;
          // A value may span lines the splitter does not report: every invalid line seen so far is settled here.
          encoding.before(Number.POSITIVE_INFINITY);
          yield* values.parse(piece.text, piece.line, piece.index === undefined ? undefined : String(piece.index));
        }
      };
      for await (const chunk of text as AsyncIterable<string>) {
        signal.throwIfAborted();
        yield* parsePieces(splitter.push(chunk));
      }
      yield* parsePieces(splitter.end());
    }
    encoding.finish();
  } catch (error) {
    if (error instanceof JsonSplitError) {
      throw readFailure(
        new FerryError('FERRY_SOURCE_READ_FAILED', `invalid JSON at ${file.relative}:${error.line}: ${error.message}`, {
          where: `${file.relative}:${error.line} (sync ${syncName})`,
          hint: 'a .json file must hold one JSON value (an array is split into records); use format: jsonl for one value per line',
        }),
        file.relative,
        syncName,
        signal,
      );
    }
    throw readFailure(error, `${file.relative}:${line}`, syncName, signal);
  } finally {
    text.destroy();
  }
  values.finish();
}

/**
 * The values of one file turned into rows (through `pointer`, with `_file`),
 * and what could not be: a malformed value fails or is skipped, a value with
 * nothing at the pointer is skipped; each skip is reported and warned about
 * (the first {@link WARN_EACH} one by one, then a total).
 */
class FileValues {
  private readonly pointer: ReturnType<typeof parsePointer> | undefined;
  private skipped = 0;
  private missing = 0;

  constructor(
    private readonly file: InputFile,
    private readonly options: JsonlOptions,
    private readonly context: ParseContext,
  ) {
    this.pointer = options.pointer === undefined ? undefined : parsePointer(options.pointer);
  }

  /** Rows of one JSON text that starts on `line`. */
  *parse(text: string, line: number, key: string | undefined): Generator<FileRow> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.invalid(line, error, text);
      return;
    }
    yield* this.rows(value, line, key);
  }

  /** Warn about the totals of what was skipped beyond the first few. */
  finish(): void {
    const { file, options, context } = this;
    if (this.skipped > WARN_EACH) context.logger.warn({ file: file.relative, lines: this.skipped }, `${file.relative}: ${this.skipped} invalid JSON values skipped in all`);
    if (this.missing > WARN_EACH) context.logger.warn({ file: file.relative, records: this.missing }, `${file.relative}: ${this.missing} values had nothing at pointer "${options.pointer}"`);
  }

  private invalid(line: number, error: unknown, text: string): void {
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

  private *rows(value: unknown, line: number, key: string | undefined): Generator<FileRow> {
    const { file, options, context, pointer } = this;
    if (!pointer) {
      yield this.row(value, line, key);
      return;
    }
    const selected = select(value, pointer);
    if (selected === undefined) {
      this.missing += 1;
      context.reportSkipped?.({ action: 'skipped', origin: { stream: options.path, file: file.relative, line }, reason: `nothing at pointer "${options.pointer}"` });
      if (this.missing <= WARN_EACH) context.logger.warn({ file: file.relative, line, pointer: options.pointer }, `${file.relative}:${line}: nothing at pointer "${options.pointer}"; skipped`);
      return;
    }
    if (!Array.isArray(selected)) {
      yield this.row(selected, line, key);
      return;
    }
    for (const [index, element] of selected.entries()) yield this.row(element, line, key === undefined ? String(index) : `${key}/${index}`);
  }

  private row(value: unknown, line: number, key: string | undefined): FileRow {
    const { file, options } = this;
    // JSON.parse output is plain data, so it fits SourceValue.
    const base: SourceData = isRecord(value) ? (value as SourceData) : { value: value as SourceValue };
    const data = options.includeFileName ? { ...base, _file: file.relative } : base;
    return key === undefined ? { data, file: file.relative, line } : { data, file: file.relative, line, key };
  }
}

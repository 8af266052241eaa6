/**
 * Stream one JSON Lines or JSON file into records with the line each starts on.
 */
import { FerryError, isRecord, messageOf, type SourceData, type SourceValue } from '../../src/sdk/index.js';
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
  const { signal, logger, syncName } = context;
  signal.throwIfAborted();
  const pointer = options.pointer === undefined ? undefined : parsePointer(options.pointer);
  let skipped = 0;
  let missing = 0;

  const invalid = (line: number, error: unknown, text: string): void => {
    const reason = messageOf(error);
    if (options.onInvalidLine === 'fail') {
      throw new FerryError('FERRY_SOURCE_READ_FAILED', `invalid JSON at ${file.relative}:${line}: ${reason}`, {
        where: `${file.relative}:${line} (sync ${syncName})`,
        hint: 'fix the line, or set onInvalidLine: skip to log and skip malformed lines',
        details: { file: file.relative, line, text: text.length > 200 ? `${text.slice(0, 200)}…` : text },
      });
    }
    skipped += 1;
    context.reportSkipped?.({ action: 'skipped', origin: { stream: options.path, file: file.relative, line }, reason: `invalid JSON (${reason})` });
    if (skipped <= WARN_EACH) logger.warn({ file: file.relative, line, reason }, `${file.relative}:${line}: invalid JSON skipped (${reason})`);
  };

  function* rows(value: unknown, line: number, key: string | undefined): Generator<FileRow> {
    let selected = value;
    if (pointer) {
      selected = select(value, pointer);
      if (selected === undefined) {
        missing += 1;
        context.reportSkipped?.({ action: 'skipped', origin: { stream: options.path, file: file.relative, line }, reason: `nothing at pointer "${options.pointer}"` });
        if (missing <= WARN_EACH) logger.warn({ file: file.relative, line, pointer: options.pointer }, `${file.relative}:${line}: nothing at pointer "${options.pointer}"; skipped`);
        return;
      }
      if (Array.isArray(selected)) {
        for (const [index, element] of selected.entries()) {
          yield row(element, line, key === undefined ? String(index) : `${key}/${index}`);
        }
        return;
      }
    }
    yield row(selected, line, key);
  }

  function row(value: unknown, line: number, key: string | undefined): FileRow {
    // JSON.parse output is plain data, so it fits SourceValue.
    const base: SourceData = isRecord(value) ? (value as SourceData) : { value: value as SourceValue };
    const data = options.includeFileName ? { ...base, _file: file.relative } : base;
    return key === undefined ? { data, file: file.relative, line } : { data, file: file.relative, line, key };
  }

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
        if (body.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch (error) {
          invalid(line, error, body);
          continue;
        }
        yield* rows(value, line, undefined);
      }
    } else {
      const splitter = new JsonSplitter();
      const parsePieces = function* (pieces: ReturnType<JsonSplitter['push']>): Generator<FileRow> {
        for (const piece of pieces) {
          line = piece.line;
          // A value may span lines the splitter does not report: every invalid line seen so far is settled here.
          encoding.before(Number.POSITIVE_INFINITY);
          let value: unknown;
          try {
            value = JSON.parse(piece.text);
          } catch (error) {
            invalid(piece.line, error, piece.text);
            continue;
          }
          yield* rows(value, piece.line, piece.index === undefined ? undefined : String(piece.index));
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
  if (skipped > WARN_EACH) logger.warn({ file: file.relative, lines: skipped }, `${file.relative}: ${skipped} invalid JSON values skipped in all`);
  if (missing > WARN_EACH) logger.warn({ file: file.relative, records: missing }, `${file.relative}: ${missing} values had nothing at pointer "${options.pointer}"`);
}

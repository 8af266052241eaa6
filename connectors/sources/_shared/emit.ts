/**
 * The last step of every file source's read(): attach origins, keys and
 * cursors, and drop what an incremental read has already delivered.
 */
import type { IncrementalRead, RecordOrigin, SourceData, SourceRecord } from '../../../src/sdk/index.js';
import { createCursorFilter, recordKey } from './incremental.js';

/** A record as a file parser produces it. */
export interface FileRow {
  data: SourceData;
  /** Path relative to baseDir. */
  file: string;
  /** 1-based line where the record starts. */
  line: number;
  /** A fallback key when no primary key is declared (e.g. an array index). */
  key?: string;
  /** Text `data` follows from entirely (SourceRecord.dataText), when the parser has it at hand. */
  dataText?: string;
  /** The primary key's text as recordKey gives it, when the parser has it without reading `data`. */
  keyText?: string | undefined;
  /** `data` is worked out when first read (a getter): the record passes it on unread (see JsonLineRow). */
  lazy?: boolean;
}

/** A record whose data is its row's, read only when asked for (a {@link FileRow.lazy} row's). */
class RowRecord implements SourceRecord {
  dataText?: string;
  cursor?: string | number | null;

  constructor(
    private readonly row: FileRow,
    readonly origin: RecordOrigin,
  ) {}

  get data(): SourceData {
    return this.row.data;
  }
}

/**
 * Turns a row into its record (undefined: an incremental read already
 * delivered it). A plain function, not a generator stage: one stage fewer
 * for every record on the way to the runner.
 */
export function recordEmitter(options: {
  stream: string;
  primaryKey: readonly string[] | undefined;
  incremental: IncrementalRead | undefined;
}): (row: FileRow) => SourceRecord | undefined {
  const filter = options.incremental ? createCursorFilter(options.incremental) : undefined;
  const { primaryKey } = options;
  return (row) => {
    // Without a primary key the data is not read for one: a lazy row's stays unread.
    const key = row.keyText ?? (primaryKey?.length ? recordKey(row.data, primaryKey) : undefined) ?? row.key;
    const origin: RecordOrigin = { stream: options.stream, file: row.file, line: row.line };
    if (key !== undefined) origin.key = key;
    const record: SourceRecord = row.lazy === true ? new RowRecord(row, origin) : { data: row.data, origin };
    if (row.dataText !== undefined) record.dataText = row.dataText;
    if (!filter) return record;
    const cursor = filter.cursorOf(row.data);
    if (!filter.isNew(cursor, key)) return undefined;
    record.cursor = cursor;
    return record;
  };
}

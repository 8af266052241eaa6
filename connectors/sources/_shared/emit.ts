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
}

export async function* toSourceRecords(
  rows: AsyncIterable<FileRow>,
  options: { stream: string; primaryKey: readonly string[] | undefined; incremental: IncrementalRead | undefined },
): AsyncGenerator<SourceRecord> {
  const filter = options.incremental ? createCursorFilter(options.incremental) : undefined;
  for await (const row of rows) {
    const key = recordKey(row.data, options.primaryKey) ?? row.key;
    const origin: RecordOrigin = { stream: options.stream, file: row.file, line: row.line };
    if (key !== undefined) origin.key = key;
    if (!filter) {
      yield { data: row.data, origin };
      continue;
    }
    const cursor = filter.cursorOf(row.data);
    if (filter.isNew(cursor, key)) yield { data: row.data, origin, cursor };
  }
}

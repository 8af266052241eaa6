/**
 * The check() and read() every one-stream file source (csv, jsonl) shares:
 * the files `path` names, in this run's partition, parsed and emitted as
 * records. Only the parser differs.
 */
import { inPartition, type BufferedIterator, type ReadContext, type SourceRecord } from '../../../src/sdk/index.js';
import { recordEmitter, type FileRow } from './emit.js';
import { assertReadable, resolveFiles, toKeyList, type InputFile, type ParseContext } from './files.js';

interface FileSourceOptions {
  path: string;
  primaryKey?: string | readonly string[] | undefined;
}

/** check(): every file `path` names exists and can be read. */
export async function checkFilesReadable(ctx: { options: FileSourceOptions; baseDir: string; syncName: string }): Promise<void> {
  const files = await resolveFiles(ctx.options.path, ctx.baseDir, ctx.syncName);
  for (const file of files) await assertReadable(file, ctx.syncName);
}

/** read(): the rows `parse` finds in each file of this partition, as records of the stream `path`. */
export function readFileSource<Options extends FileSourceOptions>(
  ctx: ReadContext<Options> & ParseContext,
  parse: (file: InputFile, options: Options, context: ParseContext) => AsyncIterable<FileRow>,
): AsyncIterableIterator<SourceRecord> {
  const { options } = ctx;
  const primaryKey = toKeyList(options.primaryKey) ?? ctx.primaryKey;
  const emit = recordEmitter({ stream: options.path, primaryKey, incremental: ctx.incremental });
  // The parser is told the key the records are emitted with (it may work keys out itself).
  const context: ParseContext = { ...ctx, primaryKey };
  return new FileRecords(
    () => resolveFiles(options.path, ctx.baseDir, ctx.syncName),
    // A partitioned sync reads whole files: each file's slice is a hash of its path.
    (file) => (inPartition(file.relative, ctx.partition) ? parse(file, options, context)[Symbol.asyncIterator]() : undefined),
    emit,
  );
}

/**
 * The records of every file, one file after another. A hand-written
 * iterator that steps each file's rows directly rather than an async
 * generator around them: a generator stage costs a few promises and objects
 * per record, and a re-run of unchanged records is bound by exactly that.
 * For the same reason it passes on the rows a file's parser already holds
 * (takeBuffered) when the parser offers them.
 */
class FileRecords implements AsyncIterableIterator<SourceRecord>, BufferedIterator<SourceRecord> {
  private files: InputFile[] | undefined;
  private index = 0;
  private rows: BufferedIterator<FileRow> | undefined;
  private ended = false;

  constructor(
    private readonly listFiles: () => Promise<InputFile[]>,
    /** The file's rows, or undefined when it is not this partition's. */
    private readonly open: (file: InputFile) => BufferedIterator<FileRow> | undefined,
    private readonly emit: (row: FileRow) => SourceRecord | undefined,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<SourceRecord>> {
    return this.rows ? this.rows.next().then(this.step) : this.nextFile();
  }

  /**
   * The records of the rows the current file's parser holds, up to `max`;
   * none between files (next() opens the next one) or when the parser does
   * not offer its rows. Rows an incremental read drops are taken again, in
   * one take at a time, so that a failure never loses records already
   * taken.
   */
  takeBuffered(max: number): SourceRecord[] {
    const records: SourceRecord[] = [];
    const rows = this.rows;
    if (rows?.takeBuffered === undefined) return records;
    for (;;) {
      const taken = rows.takeBuffered(max);
      for (const row of taken) {
        const record = this.emit(row);
        if (record !== undefined) records.push(record);
      }
      if (records.length > 0 || taken.length === 0) return records;
    }
  }

  async return(): Promise<IteratorResult<SourceRecord>> {
    this.ended = true;
    const rows = this.rows;
    this.rows = undefined;
    await rows?.return?.();
    return { done: true, value: undefined };
  }

  private readonly step = (result: IteratorResult<FileRow>): IteratorResult<SourceRecord> | Promise<IteratorResult<SourceRecord>> => {
    if (result.done) {
      this.rows = undefined;
      return this.nextFile();
    }
    const record = this.emit(result.value);
    return record === undefined ? this.skipping() : { done: false, value: record };
  };

  /** An incremental read drops what it already delivered: rows in a loop, not a chain of promises as long as the run of dropped rows. */
  private async skipping(): Promise<IteratorResult<SourceRecord>> {
    while (this.rows) {
      const result = await this.rows.next();
      if (result.done) break;
      const record = this.emit(result.value);
      if (record !== undefined) return { done: false, value: record };
    }
    this.rows = undefined;
    return this.nextFile();
  }

  private async nextFile(): Promise<IteratorResult<SourceRecord>> {
    this.files ??= await this.listFiles();
    while (!this.ended && this.index < this.files.length) {
      const rows = this.open(this.files[this.index++]!);
      if (rows === undefined) continue;
      this.rows = rows;
      return this.next();
    }
    this.ended = true;
    return { done: true, value: undefined };
  }
}

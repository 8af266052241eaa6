/**
 * The check() and read() every one-stream file source (csv, jsonl) shares:
 * the files `path` names, in this run's partition, parsed and emitted as
 * records. Only the parser differs.
 */
import { inPartition, type ReadContext, type SourceRecord } from '../../../src/sdk/index.js';
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
): AsyncGenerator<SourceRecord> {
  const { options } = ctx;
  const emit = recordEmitter({
    stream: options.path,
    primaryKey: toKeyList(options.primaryKey) ?? ctx.primaryKey,
    incremental: ctx.incremental,
  });
  async function* records(): AsyncGenerator<SourceRecord> {
    const files = await resolveFiles(options.path, ctx.baseDir, ctx.syncName);
    // A partitioned sync reads whole files: each file's slice is a hash of its path.
    for (const file of files) {
      if (!inPartition(file.relative, ctx.partition)) continue;
      for await (const row of parse(file, options, ctx)) {
        const record = emit(row);
        if (record !== undefined) yield record;
      }
    }
  }
  return records();
}

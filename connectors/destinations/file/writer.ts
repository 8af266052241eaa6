/**
 * The open `file` destination. Overwrite writes a temporary file next to the
 * target and renames it over the target on close, so a failed or stopped
 * export leaves the old file as it was; append adds to the end. Each batch is
 * written with one call (a CSV file whose header is inferred is written on
 * close, from its spool: csv-spool.ts); gzip output gets one gzip member per
 * write, which every gzip reader concatenates. What a killed run left beside
 * the file is removed when the next run opens it, and what it appended is cut
 * back to where the last finished run ended (committed-end.ts).
 */
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { FerryError, messageOf, type ConnectorContext, type DestinationBatch, type DestinationWriter, type RetainRequest } from '../../../src/sdk/index.js';
import { outputPath, prepareFolder } from '../_export/paths.js';
import { CsvSpool } from './csv-spool.js';
import { csvRows, jsonLines } from './encode.js';
import { readCsvHeader } from './header.js';
import { cutToCommittedEnd, forgetCommittedEnd, recordCommittedEnd } from './committed-end.js';
import { trimCutGzipMember, trimPartialLine } from './killed-tail.js';
import { appendTombstones } from './tombstones.js';
import { formatOf, type FileOptions } from './options.js';

const gzip = promisify(gzipCallback);

export async function openFileWriter(ctx: ConnectorContext<FileOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const file = outputPath(options.path, ctx.baseDir);
  const format = formatOf(options);
  const compressed = file.toLowerCase().endsWith('.gz');
  await prepareFolder(file, 'file', ctx.syncName);
  await removeLeftovers(ctx, file);
  if (options.mode === 'append' && (await cutToCommittedEnd(file, ctx.logger)) === 'unknown') {
    // No end to trust (a file ferry never finished appending to, one from before ends were kept, one changed
    // by hand): what a killed run cut short is told by the format alone. Its end from now on is where it stands,
    // so that this run, if it is killed, is cut back to it.
    if (compressed) await trimCutGzipMember(file, ctx.logger);
    else if (format === 'jsonl') await trimPartialLine(file, ctx.logger);
    await recordCommittedEnd(file, hiddenBeside(file, 'tmp'), { missing: 'empty' }).catch((cause: unknown) => {
      throw failure(messageOf(cause), ctx.syncName, cause);
    });
  }

  const header = format === 'csv' && options.mode === 'append' ? await appendedHeader(ctx, file, compressed) : undefined;
  let columns: string[] | undefined = header ?? options.columns;
  let headerWritten = header !== undefined;
  // Overwrite writes a temporary file beside the target and renames it on close, so a failed export keeps the old content.
  const target = options.mode === 'overwrite' ? hiddenBeside(file, 'tmp') : file;
  const handle = await openTarget(target, options.mode, ctx.syncName);
  const warned = new Set<string>();
  // No header to follow: every record's fields become columns, so the rows wait in a spool until the header is whole.
  const spool = format === 'csv' && columns === undefined ? await createSpool(file, ctx.syncName) : undefined;

  const append = async (text: string) => {
    if (text === '') return;
    const bytes = Buffer.from(text, 'utf8');
    try {
      await handle.write(compressed ? await gzip(bytes) : bytes);
    } catch (cause) {
      throw failure(`cannot write ${target}: ${messageOf(cause)}`, ctx.syncName, cause);
    }
  };

  const encode = (batch: DestinationBatch): string => {
    if (format === 'jsonl') return jsonLines(batch.records);
    const rows = csvRows(batch.records, columns, !headerWritten);
    columns = rows.columns;
    headerWritten = true;
    // Columns the user listed are a deliberate choice; only an inferred header deserves a warning.
    const fresh = options.columns ? [] : rows.dropped.filter((key) => !warned.has(key));
    if (fresh.length > 0) {
      for (const key of fresh) warned.add(key);
      ctx.logger.warn({ path: file, columns: fresh }, 'fields outside the CSV header are not written; list them under destination.columns');
    }
    return rows.text;
  };

  let finished = false;
  // An appended JSON Lines file marks a record gone with a newer copy of its last line (tombstones.ts); nothing else can keep one.
  const softDeletes: Pick<DestinationWriter, 'retain' | 'retainModes'> =
    options.mode === 'append' && format === 'jsonl'
      ? {
          retainModes: ['soft'] as const,
          async retain(request: RetainRequest): Promise<number> {
            return appendTombstones({
              file,
              gzip: compressed,
              key: request.key,
              keys: request.keys,
              deletedAt: request.deletedAt ?? new Date().toISOString(),
              loadId: request.loadId,
              exportName: ctx.syncName,
              append,
            });
          },
        }
      : {};
  return {
    ...softDeletes,
    async write(batch) {
      if (batch.records.length === 0) return;
      if (!spool) return append(encode(batch));
      await spool.add(batch.records).catch((cause: unknown) => {
        throw failure(`cannot write ${spool.path}: ${messageOf(cause)}`, ctx.syncName, cause);
      });
    },
    async flush() {
      await (spool ? spool.sync() : handle.datasync());
    },
    async close() {
      if (finished) return;
      finished = true;
      try {
        if (spool) {
          for await (const text of spool.csv()) await append(text);
        }
        // A CSV export of nothing still gets its header when the columns are known.
        if (format === 'csv' && !headerWritten && columns) await append(encode({ stream: '', records: [] }));
        await handle.datasync();
        await handle.close();
        if (target !== file) await rename(target, file);
        // Where this run's bytes end, for a later append to cut a killed run back to; an overwritten file starts afresh.
        await (options.mode === 'append' ? recordCommittedEnd(file, hiddenBeside(file, 'tmp')) : forgetCommittedEnd(file));
        await spool?.remove();
      } catch (cause) {
        await handle.close().catch(() => undefined);
        if (target !== file) await unlink(target).catch(() => undefined);
        await spool?.remove();
        throw isFerry(cause) ? cause : failure(`cannot finish ${file}: ${messageOf(cause)}`, ctx.syncName, cause);
      }
    },
    async abort() {
      if (finished) return;
      finished = true;
      await handle.close().catch(() => undefined);
      if (target !== file) await unlink(target).catch(() => undefined);
      await spool?.remove();
    },
  };
}

/** The header of the CSV file an append continues, if it has one; it must match destination.columns when both are set. */
async function appendedHeader(ctx: ConnectorContext<FileOptions>, file: string, compressed: boolean): Promise<string[] | undefined> {
  const existing = await readCsvHeader(file, compressed).catch((cause: unknown) => {
    throw failure(`cannot read the header of ${file}: ${messageOf(cause)}`, ctx.syncName, cause);
  });
  if (!existing) return undefined;
  const columns = ctx.options.columns;
  if (columns && existing.join('\u0000') !== columns.join('\u0000')) {
    throw failure(`${file} has the columns ${existing.join(', ')}, but destination.columns says ${columns.join(', ')}`, ctx.syncName);
  }
  return existing;
}

/** The hidden files a run writes beside `file`: an overwrite's new content, a CSV spool. */
type HiddenKind = 'tmp' | 'rows';

/** A fresh hidden file beside `file`, named apart by 8 hex digits: `.<name>.<hex>.<kind>`. */
function hiddenBeside(file: string, kind: HiddenKind): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.${kind}`);
}

/** Whether `name` is one of hiddenBeside's files for `file`. */
function isLeftover(name: string, file: string): boolean {
  const prefix = `.${basename(file)}.`;
  return name.startsWith(prefix) && /^[0-9a-f]{8}\.(tmp|rows)$/.test(name.slice(prefix.length));
}

/**
 * Delete what a run killed before its close left beside `file`: the run lease
 * lets one run of an export at a time, so none is in use.
 */
async function removeLeftovers(ctx: ConnectorContext<FileOptions>, file: string): Promise<void> {
  const names = (await readdir(dirname(file)).catch(() => [])).filter((name) => isLeftover(name, file));
  for (const name of names) await unlink(join(dirname(file), name)).catch(() => undefined);
  if (names.length > 0) ctx.logger.warn({ path: file, files: names }, 'removed the temporary files of an earlier run that did not finish');
}

/** The spool of a CSV file whose header is inferred: hidden, beside the target. */
async function createSpool(file: string, exportName: string): Promise<CsvSpool> {
  const path = hiddenBeside(file, 'rows');
  try {
    return await CsvSpool.create(path);
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `file: cannot open ${path}: ${messageOf(cause)}`, { where: `export ${exportName}`, cause });
  }
}

async function openTarget(target: string, mode: FileOptions['mode'], exportName: string): Promise<FileHandle> {
  try {
    return await open(target, mode === 'overwrite' ? 'w' : 'a');
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `file: cannot open ${target}: ${messageOf(cause)}`, { where: `export ${exportName}`, cause });
  }
}

function failure(message: string, exportName: string, cause?: unknown): FerryError {
  return new FerryError('FERRY_DESTINATION_WRITE_FAILED', `file: ${message}`, { where: `export ${exportName}`, ...(cause === undefined ? {} : { cause }) });
}

function isFerry(error: unknown): error is FerryError {
  return error instanceof FerryError;
}

/**
 * The open `file` destination. Overwrite writes a temporary file next to the
 * target and renames it over the target on close, so a failed or stopped
 * export leaves the old file as it was; append adds to the end. Each batch is
 * written with one call; gzip output gets one gzip member per batch, which
 * every gzip reader concatenates.
 */
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { FerryError, messageOf, type ConnectorContext, type DestinationBatch, type DestinationWriter } from '../../../src/sdk/index.js';
import { outputPath, prepareFolder } from '../_export/paths.js';
import { csvRows, jsonLines } from './encode.js';
import { readCsvHeader } from './header.js';
import { formatOf, type FileOptions } from './options.js';

const gzip = promisify(gzipCallback);

export async function openFileWriter(ctx: ConnectorContext<FileOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const file = outputPath(options.path, ctx.baseDir);
  const format = formatOf(options);
  const compressed = file.toLowerCase().endsWith('.gz');
  await prepareFolder(file, 'file', ctx.syncName);

  const header = format === 'csv' && options.mode === 'append' ? await appendedHeader(ctx, file, compressed) : undefined;
  let columns: string[] | undefined = header ?? options.columns;
  let headerWritten = header !== undefined;
  // Overwrite writes a temporary file beside the target and renames it on close, so a failed export keeps the old content.
  const target = options.mode === 'overwrite' ? join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`) : file;
  const handle = await openTarget(target, options.mode, ctx.syncName);
  const warned = new Set<string>();

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
  return {
    async write(batch) {
      if (batch.records.length > 0) await append(encode(batch));
    },
    async flush() {
      await handle.datasync();
    },
    async close() {
      if (finished) return;
      finished = true;
      try {
        // A CSV export of nothing still gets its header when the columns are known.
        if (format === 'csv' && !headerWritten && columns) await append(encode({ stream: '', records: [] }));
        await handle.datasync();
        await handle.close();
        if (target !== file) await rename(target, file);
      } catch (cause) {
        await handle.close().catch(() => undefined);
        if (target !== file) await unlink(target).catch(() => undefined);
        throw isFerry(cause) ? cause : failure(`cannot finish ${file}: ${messageOf(cause)}`, ctx.syncName, cause);
      }
    },
    async abort() {
      if (finished) return;
      finished = true;
      await handle.close().catch(() => undefined);
      if (target !== file) await unlink(target).catch(() => undefined);
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

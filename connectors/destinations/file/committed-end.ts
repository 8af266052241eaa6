/**
 * Where an appended file ended when a run last finished writing it, kept in
 * a small hidden file beside it (`.<name>.ferry-end`: the length in bytes and
 * a hash of the bytes just before that end). A run killed while appending
 * (kill -9, a crash, a lost machine) leaves what it wrote after that end:
 * whole lines or gzip members its re-run writes again, and a last line or
 * member cut short. Cutting the file back to the end before anything is
 * appended leaves it as the last finished run left it, gzipped or not, with
 * no record twice.
 *
 * The end is recorded after the run's bytes are on disk (datasync) and
 * before ferry moves the export's watermark, so a run killed in between
 * (milliseconds) keeps its lines and its records come once more; a run killed
 * any earlier is cut away whole. A file changed outside ferry (shorter than
 * the end, or other bytes before it) is left alone, with a warning. Where
 * there is no end to trust, the writer records the file as it stands when a
 * run opens it (writer.ts), so that run too is cut back if it is killed.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { messageOf, type ConnectorLogger } from '../../../src/sdk/index.js';

/** Bytes before the end that the hash covers: enough to tell the same file from another one. */
const TAIL_BYTES = 256;

interface CommittedEnd {
  bytes: number;
  tail: string;
}

/** What cutting found: the file cut back (or already at) its recorded end, or no end to trust. */
export type CutResult = 'at-end' | 'cut' | 'unknown';

/** The hidden file holding `file`'s end. */
export function endFileOf(file: string): string {
  return join(dirname(file), `.${basename(file)}.ferry-end`);
}

/**
 * Cut `file` back to the end the last finished run recorded, when it is
 * longer and the bytes before the end are the ones recorded. `unknown` when
 * there is no end (a file ferry never finished appending to, or written
 * before ends were recorded) or the file no longer matches it.
 */
export async function cutToCommittedEnd(file: string, logger: ConnectorLogger): Promise<CutResult> {
  const end = await readEnd(file);
  if (!end) return 'unknown';
  const handle = await open(file, 'r+').catch(() => undefined);
  if (!handle) return 'unknown';
  try {
    const { size } = await handle.stat();
    if (size < end.bytes || (await tailHash(handle, end.bytes)) !== end.tail) {
      logger.warn({ path: file, recordedBytes: end.bytes, bytes: size }, 'the file was changed since ferry last appended to it: nothing a killed run may have left is cut');
      return 'unknown';
    }
    if (size === end.bytes) return 'at-end';
    await handle.truncate(end.bytes);
    logger.warn({ path: file, bytes: size - end.bytes }, 'cut what a run that did not finish appended after the last finished run; its records are exported again');
    return 'cut';
  } finally {
    await handle.close();
  }
}

/**
 * Record where `file` ends now (its bytes are on disk): written beside it and
 * renamed into place, so a kill leaves the old end or the new. With
 * `missing: 'empty'`, a file not there yet ends at 0.
 */
export async function recordCommittedEnd(file: string, scratch: string, options: { missing?: 'empty' } = {}): Promise<void> {
  const handle = await open(file, options.missing === 'empty' ? 'a+' : 'r');
  let end: CommittedEnd;
  try {
    const { size } = await handle.stat();
    end = { bytes: size, tail: await tailHash(handle, size) };
  } finally {
    await handle.close();
  }
  try {
    await writeFile(scratch, `${JSON.stringify(end)}\n`, { flush: true });
    await rename(scratch, endFileOf(file));
  } catch (cause) {
    await unlink(scratch).catch(() => undefined);
    throw new Error(`cannot record where ${file} ends: ${messageOf(cause)}`, { cause });
  }
}

/** Remove a recorded end (a file overwritten whole has no run to cut back to). */
export async function forgetCommittedEnd(file: string): Promise<void> {
  await unlink(endFileOf(file)).catch(() => undefined);
}

async function readEnd(file: string): Promise<CommittedEnd | undefined> {
  const text = await readFile(endFileOf(file), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<CommittedEnd>;
    return typeof parsed.bytes === 'number' && Number.isSafeInteger(parsed.bytes) && parsed.bytes >= 0 && typeof parsed.tail === 'string' ? { bytes: parsed.bytes, tail: parsed.tail } : undefined;
  } catch {
    return undefined;
  }
}

async function tailHash(handle: FileHandle, end: number): Promise<string> {
  const start = Math.max(0, end - TAIL_BYTES);
  const buffer = Buffer.alloc(end - start);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
  return createHash('sha256').update(buffer.subarray(0, bytesRead)).digest('hex');
}

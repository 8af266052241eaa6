/**
 * What a run killed while appending can leave at the end of a file that has
 * no recorded end to cut back to (committed-end.ts): a JSON Lines line or a
 * gzip member cut short. Either is found from the end of the file, a block at
 * a time, and cut off with a warning; the killed run's watermark did not
 * move, so its records come again.
 */
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ConnectorLogger } from '../../../src/sdk/index.js';

/** Bytes read at a time looking back from the end. */
const TAIL_BLOCK = 64 * 1024;
const NEWLINE = Buffer.from('\n');
/** The start of Node's gzip header (deflate, no flags, no name, no time): how each member ferry writes begins. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);

/**
 * A JSON Lines file that does not end in a line end: the partial last line
 * (never a whole record: JSON Lines hold no raw line ends) is removed.
 */
export function trimPartialLine(file: string, logger: ConnectorLogger): Promise<void> {
  return cutBack(
    file,
    logger,
    async (handle, size) => {
      const newline = await lastIndexBackward(handle, size, NEWLINE);
      return newline === undefined ? 0 : newline + 1;
    },
    'removed a partial last line that a run killed while writing left; its records are exported again',
  );
}

/**
 * A gzip file whose last member was cut short: every reader stops there with
 * an error, and whatever is appended after it is lost to them. ferry writes
 * each batch as one member with Node's header, so the last member starts at
 * the last such header; when what follows it does not decompress whole, it
 * is cut off. Reads the last member once, as a stream (a member is a batch,
 * whose records may be large).
 */
export function trimCutGzipMember(file: string, logger: ConnectorLogger): Promise<void> {
  return cutBack(
    file,
    logger,
    async (handle, size) => {
      const start = await lastIndexBackward(handle, size, GZIP_HEADER);
      // Cut short (or not a gzip member at all): either way no reader gets past it.
      return start === undefined || (await decompressesWhole(file, start)) ? size : start;
    },
    'removed a gzip member that a run killed while writing left cut short; its records are exported again',
  );
}

/** Truncate `file` to the length `keep` finds, warning once with the bytes removed; a missing file is left alone. */
async function cutBack(file: string, logger: ConnectorLogger, keep: (handle: FileHandle, size: number) => Promise<number>, message: string): Promise<void> {
  const handle = await open(file, 'r+').catch(() => undefined);
  if (!handle) return;
  try {
    const { size } = await handle.stat();
    const end = await keep(handle, size);
    if (end >= size) return;
    await handle.truncate(end);
    logger.warn({ path: file, bytes: size - end }, message);
  } finally {
    await handle.close();
  }
}

/** The offset of the last `needle` in the file's first `size` bytes, read backwards a block at a time; undefined when there is none. */
async function lastIndexBackward(handle: FileHandle, size: number, needle: Buffer): Promise<number | undefined> {
  const block = Buffer.alloc(TAIL_BLOCK + needle.length);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - TAIL_BLOCK);
    // Overlap the block after by a needle's length, so one across the boundary is found.
    const length = Math.min(size, end + needle.length) - start;
    const { bytesRead } = await handle.read(block, 0, length, start);
    const found = block.subarray(0, bytesRead).lastIndexOf(needle);
    if (found >= 0) return start + found;
    end = start;
  }
  return undefined;
}

/** Whether the file from `start` to its end is whole gzip members, decompressed and dropped as it streams. */
async function decompressesWhole(file: string, start: number): Promise<boolean> {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  return pipeline(createReadStream(file, { start }), createGunzip(), discard).then(
    () => true,
    () => false,
  );
}

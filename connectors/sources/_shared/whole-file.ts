/**
 * Reading a file that becomes one record (a transcript, an e-mail, a chat
 * export's day): all of it at once, under a size cap with a clear refusal,
 * decoded as UTF-8 with the lines that held invalid bytes named, so a source
 * can report them (repaired: read as U+FFFD) or refuse the file. Such files
 * are small by nature; the cap keeps a stray video file from filling memory.
 */
import { isUtf8 } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { FerryError } from '../../../src/sdk/index.js';

/** Files larger than this are refused, not read: 64 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

export const maxFileBytesOption = z
  .number()
  .int()
  .positive()
  .default(DEFAULT_MAX_FILE_BYTES)
  .describe('Files larger than this many bytes are skipped (counted and warned about) rather than read into memory.');

export interface DecodedText {
  text: string;
  /** 1-based lines that held bytes which are not valid UTF-8 (read as U+FFFD). */
  invalidLines: number[];
}

/** Decode UTF-8 (a BOM stripped), naming every line that holds an invalid sequence. */
export function decodeUtf8(bytes: Uint8Array): DecodedText {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const invalidLines: number[] = [];
  if (!isUtf8(buffer)) {
    let line = 1;
    let start = 0;
    for (let end = buffer.indexOf(0x0a, start); ; end = buffer.indexOf(0x0a, start)) {
      const stop = end === -1 ? buffer.length : end;
      if (!isUtf8(buffer.subarray(start, stop))) invalidLines.push(line);
      if (end === -1) break;
      start = end + 1;
      line++;
    }
  }
  let text = buffer.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text, invalidLines };
}

export type WholeFile = { bytes: Buffer; modifiedAt: Date } | { tooLarge: number };

/** The file's bytes and modification time, or its size when it is over `maxBytes`. */
export async function readWholeFile(path: string, maxBytes: number): Promise<WholeFile> {
  const info = await stat(path).catch((error: unknown) => {
    throw new FerryError('FERRY_SOURCE_UNREACHABLE', `cannot open ${path}: ${(error as Error).message}`, { cause: error });
  });
  if (info.size > maxBytes) return { tooLarge: info.size };
  return { bytes: await readFile(path), modifiedAt: info.mtime };
}

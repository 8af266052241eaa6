/** The header of a CSV file that `mode: append` adds to, so new rows line up with it. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse/sync';

/** The columns of an existing, non-empty CSV file; `undefined` when there is no file or it is empty. */
export async function readCsvHeader(file: string, gzip: boolean): Promise<string[] | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info || info.size === 0) return undefined;
  const raw = createReadStream(file);
  const input: Readable = gzip ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const [header]: string[][] = parse(line);
      return header ?? [];
    }
    return undefined;
  } finally {
    lines.close();
    raw.destroy();
  }
}

/** The header of a CSV file that `mode: append` adds to, so new rows line up with it. */
import { stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { fileLines } from './lines.js';

/** The columns of an existing, non-empty CSV file; `undefined` when there is no file or it is empty. */
export async function readCsvHeader(file: string, gzip: boolean): Promise<string[] | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info || info.size === 0) return undefined;
  for await (const line of fileLines(file, gzip)) {
    const [header]: string[][] = parse(line);
    return header ?? [];
  }
  return undefined;
}

/**
 * CSV rows whose header is known only once every record is in: a file with
 * no `columns` and no header yet gets a column for every field any record
 * had (rows of several object types each keep their own fields), so its rows
 * wait in a spool beside the target — flattened, one JSON object a line —
 * and are written under the whole header when the export completes. Memory
 * holds the column names and one line at a time, whatever the export's size.
 */
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { csvLine } from '../_export/csv.js';
import { flattenRecord, type Cell } from '../_export/flatten.js';
import { fileLines, textChunks } from './lines.js';

export class CsvSpool {
  readonly #columns = new Set<string>();

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** A new, empty spool at `path` (a hidden file beside the target). */
  static async create(path: string): Promise<CsvSpool> {
    return new CsvSpool(path, await open(path, 'w'));
  }

  /** Every field seen so far, in the order first seen: the header. */
  get columns(): string[] {
    return [...this.#columns];
  }

  async add(records: readonly Readonly<Record<string, unknown>>[]): Promise<void> {
    let text = '';
    for (const record of records) {
      const flat = flattenRecord(record);
      for (const key of Object.keys(flat)) this.#columns.add(key);
      text += `${JSON.stringify(flat)}\n`;
    }
    if (text !== '') await this.handle.write(text);
  }

  async sync(): Promise<void> {
    await this.handle.datasync();
  }

  /** The header and every spooled row under it, in chunks; the spool stays until remove(). */
  async *csv(): AsyncGenerator<string, void, undefined> {
    await this.handle.close();
    const columns = this.columns;
    if (columns.length === 0) return;
    const path = this.path;
    yield* textChunks(
      (async function* () {
        yield csvLine(columns);
        for await (const line of fileLines(path)) {
          if (line === '') continue;
          const row = JSON.parse(line) as Record<string, Cell>;
          yield csvLine(columns.map((column) => row[column] ?? null));
        }
      })(),
    );
  }

  /** Close (if still open) and delete the spool file. */
  async remove(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
  }
}

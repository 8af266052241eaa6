/**
 * `deletes: soft` for a JSON Lines file in `mode: append`, whose lines are
 * never rewritten: a record the service no longer lists gets a newer copy of
 * its latest line with `_ferry_deleted_at` set (a tombstone), appended after
 * the run's own lines, so "the last line per key" finds it deleted, with the
 * values it last had. The file is read twice, a line at a time; which key's
 * newest line is where, and the keys the service listed, are kept in a
 * scratch SQLite database in the temporary folder, not in memory.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FerryError, inChunks, isRecord, type LiveKeys } from '../../../src/sdk/index.js';
import { DELETED_AT_COLUMN, LOAD_ID_COLUMN, LOADED_AT_COLUMN } from '../_export/shape.js';
import { fileLines, textChunks } from './lines.js';

/** Lines (pass one) or keys per SQLite transaction. */
const PER_TRANSACTION = 10_000;

export interface FileTombstoneRequest {
  file: string;
  gzip: boolean;
  /** The key field as the file's lines name it. */
  key: string;
  keys: LiveKeys;
  deletedAt: string;
  loadId: string | undefined;
  exportName: string;
  /** Append text to the file (gzip and errors are the writer's). */
  append: (text: string) => Promise<void>;
}

/** Append a tombstone for every key whose newest line is live and that `keys` lacks; returns how many. */
export async function appendTombstones(request: FileTombstoneRequest): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), 'ferry-tombstones-'));
  const db = new Database(join(scratch, 'lines.db'));
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec('CREATE TABLE newest (k TEXT PRIMARY KEY, line INTEGER NOT NULL, live INTEGER NOT NULL) WITHOUT ROWID');
    db.exec('CREATE TABLE listed (k TEXT PRIMARY KEY) WITHOUT ROWID');
    await indexLines(db, request);
    const listed = db.prepare('INSERT OR IGNORE INTO listed (k) VALUES (?)');
    const insertAll = db.transaction((keys: string[]) => {
      for (const k of keys) listed.run(k);
    });
    for (const chunk of inChunks(request.keys, PER_TRANSACTION)) insertAll(chunk);

    const gone = db.prepare('SELECT line FROM newest WHERE live = 1 AND k NOT IN (SELECT k FROM listed) ORDER BY line').pluck();
    // Staged in a file of their own: appending while the file is still being read would feed the read.
    const staged = join(scratch, 'tombstones.jsonl');
    const out = await open(staged, 'w');
    let count = 0;
    const wanted = (gone.iterate() as IterableIterator<number>)[Symbol.iterator]();
    try {
      const stamped = async function* () {
        let next = wanted.next();
        for await (const [number, line] of numberedLines(request)) {
          if (next.done) return;
          if (number !== next.value) continue;
          yield `${JSON.stringify(tombstone(JSON.parse(line) as Record<string, unknown>, request))}\n`;
          count += 1;
          next = wanted.next();
        }
      };
      for await (const text of textChunks(stamped())) await out.write(text);
    } finally {
      // A statement still iterating keeps the database busy: close() would throw.
      wanted.return?.();
      await out.close();
    }
    if (count > 0) for await (const text of createReadStream(staged, { encoding: 'utf8', highWaterMark: 1 << 20 })) await request.append(text as string);
    return count;
  } finally {
    db.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Pass one: the number of each key's newest line, and whether that line is live. */
async function indexLines(db: Database.Database, request: FileTombstoneRequest): Promise<void> {
  const upsert = db.prepare('INSERT INTO newest (k, line, live) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET line = excluded.line, live = excluded.live');
  const write = db.transaction((rows: [string, number, number][]) => {
    for (const row of rows) upsert.run(...row);
  });
  let rows: [string, number, number][] = [];
  for await (const [number, line] of numberedLines(request)) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new FerryError('FERRY_DESTINATION_WRITE_FAILED', `file: ${request.file}:${number + 1} is not a JSON line, so deletes: soft cannot tell which record it holds`, {
        where: `export ${request.exportName}`,
        hint: 'repair or remove that line (a run killed while writing can leave a partial last line), then run the export again',
      });
    }
    if (!isRecord(value) || value[request.key] === undefined || value[request.key] === null) continue;
    rows.push([String(value[request.key]), number, value[DELETED_AT_COLUMN] === undefined || value[DELETED_AT_COLUMN] === null ? 1 : 0]);
    if (rows.length >= PER_TRANSACTION) {
      write(rows);
      rows = [];
    }
  }
  if (rows.length > 0) write(rows);
}

/** The record's newest line, stamped deleted (and loaded now, by this run, where it carries load metadata). */
function tombstone(record: Record<string, unknown>, request: FileTombstoneRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record, [DELETED_AT_COLUMN]: request.deletedAt };
  if (LOADED_AT_COLUMN in record) out[LOADED_AT_COLUMN] = request.deletedAt;
  if (LOAD_ID_COLUMN in record && request.loadId !== undefined) out[LOAD_ID_COLUMN] = request.loadId;
  return out;
}

/** The file's non-empty lines with their 0-based numbers. */
async function* numberedLines(request: Pick<FileTombstoneRequest, 'file' | 'gzip'>): AsyncGenerator<[number, string], void, undefined> {
  let number = -1;
  for await (const line of fileLines(request.file, request.gzip)) {
    number += 1;
    if (line !== '') yield [number, line];
  }
}

/**
 * The csv source's takeBuffered (BufferedIterator in src/sdk): the records it
 * hands over, interleaved with next() in any pattern, are exactly those a
 * read with next() alone gives — data, dataText, origins and lines, repaired
 * counts and warnings — across a header, blank lines, ragged rows, quoted
 * values spanning lines, several files, an incremental read that drops rows,
 * and a failure half-way.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import csv from '../../../connectors/sources/csv/index.js';
import { parseCsvFile } from '../../../connectors/sources/csv/parse-file.js';
import { csvOptions } from '../../../connectors/sources/csv/options.js';
import type { BufferedIterator, SourceRecord } from '../../../src/sdk/index.js';
import { expectSameFailure, fixture, readContext, readInterleaved, type Captured, type InterleavedRead } from './helpers.js';

/** Well over one 16 KiB read, so rows come in several buffers and some quoted values straddle two. */
const ROWS = 3000;

function body(rows: number, tag: string, bad?: number, nOf: (i: number) => number = (i) => i): string {
  const lines = ['id,n,note'];
  for (let j = 0; j < rows; j++) {
    const i = nOf(j);
    if (i % 50 === 7) lines.push('');
    if (i % 97 === 3) lines.push(`${tag}${i},${i},ragged,surplus`);
    else if (i % 89 === 5) lines.push(`${tag}${i},${i}`);
    else if (i % 61 === 11) lines.push(`${tag}${i},${i},"two\nlines and a ""quote"""`);
    else if (i % 67 === 13) lines.push(`${tag}${i},${i},"crlf\r\ninside"`);
    else if (i === bad) lines.push(`${tag}${i},${i},bad \u00ff byte`);
    else lines.push(`${tag}${i},${i},note ${i}`);
  }
  return lines.join('\n') + '\n';
}

interface Read extends InterleavedRead {
  captured: Captured;
}

async function read(dir: string, input: Parameters<typeof readContext<typeof csv.options>>[1], interleave: boolean, extra: { incremental?: { cursorField: string; after?: { value: number } } } = {}): Promise<Read> {
  const captured: Captured = { warnings: [], skipped: [] };
  return { ...(await readInterleaved(csv.read(readContext(csv, input, { baseDir: dir, captured, ...extra })), interleave)), captured };
}

describe('csv takeBuffered', () => {
  it('gives exactly the records next() gives, whatever the interleaving', async () => {
    const dir = fixture('csv-take', { 'a.csv': body(ROWS, 'a'), 'b.csv': body(ROWS / 3, 'b').replace('id,n,note', 'id,n,remark') });
    const input = { path: '*.csv', primaryKey: 'id' };
    const plain = await read(dir, input, false);
    const interleaved = await read(dir, input, true);

    expect(plain.failure).toBeUndefined();
    expect(plain.records).toHaveLength(ROWS + ROWS / 3);
    expect(interleaved.failure).toBeUndefined();
    expect(interleaved.records).toEqual(plain.records);
    expect(interleaved.captured).toEqual(plain.captured);
    // Most records came the fast way: the test would pass vacuously otherwise.
    expect(interleaved.taken).toBeGreaterThan(interleaved.records.length / 2);

    // The fixture has what it should: lines past blank and multi-line records, ragged rows reported.
    const byId = new Map(plain.records.map((r) => [r.data.id, r]));
    expect(byId.get('a11')?.data.note).toBe('two\nlines and a "quote"');
    expect(byId.get('a12')?.origin.line).toBe(byId.get('a11')!.origin.line! + 2);
    expect(byId.get('a3')?.data._extra).toEqual(['surplus']);
    expect(byId.get('b0')?.data.remark).toBe('note 0');
    expect(plain.captured.skipped!.filter((s) => s.action === 'repaired').length).toBeGreaterThan(50);
    expect(plain.captured.warnings.at(-1)).toMatch(/rows in all had a column count different/);
  });

  it('drops what an incremental read already delivered, as next() does', async () => {
    // Cursor values out of order, so that dropped rows come between delivered ones in every buffer.
    const order = (j: number): number => (j * 7) % ROWS;
    const dir = fixture('csv-take', { 'a.csv': body(ROWS, 'a', undefined, order) });
    const input = { path: 'a.csv', primaryKey: 'id', cast: true };
    const extra = { incremental: { cursorField: 'n', after: { value: 1800 } } };
    const plain = await read(dir, input, false, extra);
    const interleaved = await read(dir, input, true, extra);
    const expected = Array.from({ length: ROWS }, (_, j) => order(j)).filter((n) => n > 1800);
    expect(plain.records.map((r) => r.cursor)).toEqual(expected);
    expect(interleaved.records).toEqual(plain.records);
    expect(interleaved.captured).toEqual(plain.captured);
    expect(interleaved.taken).toBeGreaterThan(0);
  });

  it('hands over the rows before a failure, then throws it as next() rejects with it', async () => {
    const bytes = Buffer.from(body(ROWS, 'a', 1500), 'latin1');
    const dir = fixture('csv-take', { 'a.csv': bytes });
    const input = { path: 'a.csv', primaryKey: 'id', onInvalidEncoding: 'reject' as const };
    const plain = await read(dir, input, false);
    const interleaved = await read(dir, input, true);
    expectSameFailure(plain, interleaved, 'a1499');
  });

  it('throws a failure met half-way through a take only after the rows before it were returned', async () => {
    const dir = fixture('csv-take', { 'a.csv': Buffer.from(body(ROWS, 'a', 1500), 'latin1') });
    const options = csvOptions.parse({ path: 'a.csv', onInvalidEncoding: 'reject' });
    const rows = parseCsvFile({ absolute: join(dir, 'a.csv'), relative: 'a.csv' }, options, { signal: new AbortController().signal, logger: { debug() {}, info() {}, warn() {}, error() {} }, syncName: 's' });
    const ids: unknown[] = [];
    let failure: unknown;
    for (;;) {
      try {
        const taken = rows.takeBuffered(ROWS);
        ids.push(...taken.map((r) => r.data.id));
        if (taken.length > 0) continue;
        const result = await rows.next();
        if (result.done) break;
        ids.push(result.value.data.id);
      } catch (error) {
        failure = error;
        break;
      }
    }
    expect(ids).toEqual(Array.from({ length: 1500 }, (_, i) => `a${i}`));
    expect((failure as Error).message).toMatch(/a\.csv:\d+: bytes that are not valid utf8/);
    // The read is over: nothing more, and the parser is gone.
    expect(rows.takeBuffered(10)).toEqual([]);
    expect(await rows.next()).toEqual({ done: true, value: undefined });
  });

  it('takes nothing before the first next() and after the end', async () => {
    const dir = fixture('csv-take', { 'a.csv': 'id\n1\n2\n' });
    const iterator = csv.read(readContext(csv, { path: 'a.csv' }, { baseDir: dir }))[Symbol.asyncIterator]() as BufferedIterator<SourceRecord>;
    expect(iterator.takeBuffered!(10)).toEqual([]);
    expect((await iterator.next()).value).toMatchObject({ data: { id: '1' } });
    // The second row may or may not be buffered yet: it comes through one way or the other, once.
    const rest = iterator.takeBuffered!(10).map((r) => r.data.id);
    for (let result = await iterator.next(); !result.done; result = await iterator.next()) rest.push(result.value.data.id);
    expect(rest).toEqual(['2']);
    expect(iterator.takeBuffered!(10)).toEqual([]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});

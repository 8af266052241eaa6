/**
 * The jsonl source's takeBuffered (BufferedIterator in src/sdk): the records
 * it hands over, interleaved with next() in any pattern, are exactly those a
 * read with next() alone gives — data, dataText, origins and lines, skipped
 * reports and warnings — across blank lines, CRLF, a BOM, invalid lines
 * skipped, a pointer selecting arrays, .json documents, several files and
 * reads, and a failure half-way.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import jsonl from '../../../connectors/sources/jsonl/index.js';
import { parseJsonFile } from '../../../connectors/sources/jsonl/parse-file.js';
import { jsonlOptions } from '../../../connectors/sources/jsonl/options.js';
import type { BufferedIterator, SourceRecord } from '../../../src/sdk/index.js';
import { expectSameFailure, fixture, readContext, readInterleaved, type Captured, type InterleavedRead } from './helpers.js';

/** Well over one 16 KiB read, so lines come in several chunks and some straddle two. */
const ROWS = 3000;

/** JSON lines with blank ones, CRLF endings, invalid lines, values with nothing at /items, a BOM, and (at `bad`) a byte not valid UTF-8. */
function body(rows: number, tag: string, options: { bad?: number; pointer?: boolean; bom?: boolean } = {}): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < rows; i++) {
    const end = i % 13 === 4 ? '\r\n' : '\n';
    if (i % 50 === 7) parts.push(i % 100 === 7 ? '\n' : '   \r\n');
    if (i % 97 === 3) parts.push(`{"id":"${tag}${i}",,}${end}`);
    else if (options.pointer && i % 89 === 5) parts.push(`{"other":${i}}${end}`);
    else if (options.pointer) parts.push(`{"items":[${i % 3 === 0 ? '' : `{"id":"${tag}${i}a"},{"id":"${tag}${i}b","n":${i}}`}]}${end}`);
    else if (i % 61 === 11) parts.push(`${i}${end}`);
    else parts.push(`{"id":"${tag}${i}","n":${i},"note":"note ${'x'.repeat(i % 40)} ${i}"}${end}`);
  }
  const text = (options.bom ? '\ufeff' : '') + parts.join('');
  if (options.bad === undefined) return Buffer.from(text, 'utf8');
  const [before, after] = [text.slice(0, text.indexOf(`"${tag}${options.bad}"`)), text.slice(text.indexOf(`"${tag}${options.bad}"`))];
  return Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from([0xff]), Buffer.from(after, 'utf8')]);
}

interface Read extends InterleavedRead {
  captured: Captured;
}

async function read(dir: string, input: Parameters<typeof readContext<typeof jsonl.options>>[1], interleave: boolean): Promise<Read> {
  const captured: Captured = { warnings: [], skipped: [] };
  return { ...(await readInterleaved(jsonl.read(readContext(jsonl, input, { baseDir: dir, captured })), interleave)), captured };
}

const silent = { signal: new AbortController().signal, logger: { debug() {}, info() {}, warn() {}, error() {} }, syncName: 's' };

describe('jsonl takeBuffered', () => {
  it('gives exactly the records next() gives, whatever the interleaving (blank lines, CRLF, BOM, invalid lines skipped)', async () => {
    const dir = fixture('jsonl-take', { 'a.jsonl': body(ROWS, 'a', { bom: true }), 'b.jsonl': body(ROWS / 3, 'b') });
    const input = { path: '*.jsonl', primaryKey: 'id', onInvalidLine: 'skip' as const };
    const plain = await read(dir, input, false);
    const interleaved = await read(dir, input, true);

    expect(plain.failure).toBeUndefined();
    expect(interleaved.failure).toBeUndefined();
    expect(interleaved.records).toEqual(plain.records);
    expect(interleaved.captured).toEqual(plain.captured);
    expect(interleaved.taken).toBeGreaterThan(interleaved.records.length / 2);

    // The fixture has what it should: the BOM gone, lines counted past blank ones, invalid lines skipped and warned about.
    const byId = new Map(plain.records.map((r) => [r.data.id, r]));
    expect(plain.records[0]).toMatchObject({ data: { id: 'a0' }, origin: { line: 1 }, dataText: '{"id":"a0","n":0,"note":"note  0"}' });
    expect(byId.get('a8')?.origin.line).toBe(10);
    expect(plain.records.filter((r) => 'value' in r.data)).not.toHaveLength(0);
    expect(plain.captured.skipped!.length).toBe(31 + 11);
    expect(plain.captured.warnings.at(-1)).toMatch(/invalid JSON values skipped in all/);
  });

  it('gives the same records through a pointer selecting arrays, and from .json documents', async () => {
    const elements = Array.from({ length: ROWS }, (_, i) => `{"id":"j${i}","n":${i},"note":"${'y'.repeat(i % 30)}"}`);
    const dir = fixture('jsonl-take', { 'p.jsonl': body(ROWS, 'p', { pointer: true }), 'd.json': `[\n${elements.join(',\n')}\n]\n` });
    for (const input of [
      { path: 'p.jsonl', pointer: '/items', onInvalidLine: 'skip' as const },
      { path: 'd.json', primaryKey: 'id' },
    ]) {
      const plain = await read(dir, input, false);
      const interleaved = await read(dir, input, true);
      expect(plain.failure).toBeUndefined();
      expect(interleaved.records).toEqual(plain.records);
      expect(interleaved.captured).toEqual(plain.captured);
      expect(interleaved.taken).toBeGreaterThan(0);
      if (input.path === 'p.jsonl') {
        expect(plain.records.slice(0, 2).map((r) => [r.data, r.origin.key, r.origin.line])).toEqual([
          [{ id: 'p1a' }, '0', 2],
          [{ id: 'p1b', n: 1 }, '1', 2],
        ]);
        expect(plain.captured.warnings.some((w) => w.includes('nothing at pointer'))).toBe(true);
      } else {
        expect(plain.records).toHaveLength(ROWS);
        expect(plain.records[5]).toMatchObject({ data: { id: 'j5' }, origin: { line: 7, key: 'j5' }, dataText: elements[5] });
      }
    }
  });

  it('hands over the rows before a failure, then throws it as next() rejects with it', async () => {
    const dir = fixture('jsonl-take', { 'a.jsonl': body(ROWS, 'a', { bad: 1500 }) });
    const input = { path: 'a.jsonl', primaryKey: 'id', onInvalidEncoding: 'reject' as const, onInvalidLine: 'skip' as const };
    const plain = await read(dir, input, false);
    const interleaved = await read(dir, input, true);
    expectSameFailure(plain, interleaved, 'a1499');
  });

  it('throws a failure met half-way through a take only after the rows before it were returned', async () => {
    const dir = fixture('jsonl-take', { 'a.jsonl': body(ROWS, 'a', { bad: 1500 }) });
    const options = jsonlOptions.parse({ path: 'a.jsonl', onInvalidEncoding: 'reject', onInvalidLine: 'skip' });
    const rows = parseJsonFile({ absolute: join(dir, 'a.jsonl'), relative: 'a.jsonl' }, options, silent);
    const ids: unknown[] = [];
    let failure: unknown;
    for (;;) {
      try {
        const taken = rows.takeBuffered(ROWS);
        ids.push(...taken.map((r) => r.data.id ?? r.data.value));
        if (taken.length > 0) continue;
        const result = await rows.next();
        if (result.done) break;
        ids.push(result.value.data.id ?? result.value.data.value);
      } catch (error) {
        failure = error;
        break;
      }
    }
    expect(ids.at(-1)).toBe('a1499');
    expect(ids.length).toBeGreaterThan(1400);
    expect((failure as Error).message).toMatch(/a\.jsonl:\d+: bytes that are not valid utf8/);
    expect(rows.takeBuffered(10)).toEqual([]);
    expect(await rows.next()).toEqual({ done: true, value: undefined });
  });

  it('opens nothing before the first next(), and takes nothing then or after the end', async () => {
    const dir = fixture('jsonl-take', { 'a.jsonl': '{"id":1}\n{"id":2}\n' });
    // A file that does not exist fails only once read.
    const missing = parseJsonFile({ absolute: join(dir, 'none.jsonl'), relative: 'none.jsonl' }, jsonlOptions.parse({ path: 'none.jsonl' }), silent);
    expect(missing.takeBuffered(10)).toEqual([]);
    await expect(missing.next()).rejects.toThrow(/none\.jsonl/);

    const iterator = jsonl.read(readContext(jsonl, { path: 'a.jsonl' }, { baseDir: dir }))[Symbol.asyncIterator]() as BufferedIterator<SourceRecord>;
    expect(iterator.takeBuffered!(10)).toEqual([]);
    expect((await iterator.next()).value).toMatchObject({ data: { id: 1 } });
    const rest = iterator.takeBuffered!(10).map((r) => r.data.id);
    for (let result = await iterator.next(); !result.done; result = await iterator.next()) rest.push(result.value.data.id);
    expect(rest).toEqual([2]);
    expect(iterator.takeBuffered!(10)).toEqual([]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});

/**
 * The jsonl source's parse thread (connectors/sources/jsonl/parse-thread/):
 * a file read there gives exactly what a file read in the run's own thread
 * gives — data, lines, dataText, keys, repaired bytes, skipped lines,
 * warnings and failures — while a row's data is parsed in the run's thread
 * only when it is read.
 */
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonlOptions } from '../../../connectors/sources/jsonl/options.js';
import { parseJsonFile } from '../../../connectors/sources/jsonl/parse-file.js';
import { threadFromBytesSetting } from '../../../connectors/sources/jsonl/parse-thread/parse-thread.js';
import { readFileSource } from '../../../connectors/sources/_shared/file-source.js';
import { THREAD_FROM_BYTES } from '../../../connectors/sources/_shared/parse-thread/parse-thread.js';
import type { SourceRecord } from '../../../src/sdk/index.js';
import { fixture, parseOutcome, type ParseOutcome } from './helpers.js';

const HERE = Number.POSITIVE_INFINITY;
const THREAD = 0;

/** Lines a reader must get right: BOM, CRLF, blank and whitespace lines, malformed JSON, invalid bytes, non-object values, escapes, duplicate keys. */
function quirky(lines: number): Buffer {
  const parts: Buffer[] = [Buffer.from('\ufeff{"id":"first","n":0}\r\n')];
  for (let i = 1; i < lines; i++) {
    if (i % 53 === 1) parts.push(Buffer.from(`{"id": ${i}, "note": "quote \\" and \\u00e9", "nested": {"id": "inner"}}\n`));
    else if (i % 71 === 2) parts.push(Buffer.concat([Buffer.from(`{"id":"b${i}","bad":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}\r\n')]));
    else if (i % 89 === 3) parts.push(Buffer.from(`{"id":"m${i}", broken\n`));
    else if (i % 97 === 4) parts.push(Buffer.from(i % 2 === 0 ? '\n' : '   \t\r\n'));
    else if (i % 101 === 5) parts.push(Buffer.from(`[${i}, "array"]\n`));
    else if (i % 103 === 6) parts.push(Buffer.from(`{"id":"dup${i}","id":"last${i}"}\n`));
    else parts.push(Buffer.from(`{"id":"r${i}","name":"name é ${i}","amount":${i}.5,"ok":true,"tags":["a",null]}\n`));
  }
  parts.push(Buffer.from('{"id":"no newline at the end"}'));
  return Buffer.concat(parts);
}

function read(path: string, threadFromBytes: number, options: Record<string, unknown> = {}, primaryKey?: string[]): Promise<ParseOutcome> {
  const parsed = jsonlOptions.parse({ path: 'in.jsonl', ...options });
  return parseOutcome(
    (context) => parseJsonFile({ absolute: path, relative: 'in.jsonl' }, parsed, { ...context, primaryKey }, threadFromBytes),
    (row) => ({ data: row.data, line: row.line, dataText: row.dataText, file: row.file, key: row.key }),
  );
}

async function expectSame(path: string, options: Record<string, unknown> = {}, primaryKey?: string[]): Promise<ParseOutcome> {
  const here = await read(path, HERE, options, primaryKey);
  const thread = await read(path, THREAD, options, primaryKey);
  expect(thread).toEqual(here);
  return here;
}

/** Records as the source emits them (origin keys included), read with the thread or without. */
async function records(dir: string, setting: 'off' | 'on', options: Record<string, unknown>): Promise<SourceRecord[]> {
  const before = process.env.FERRY_JSONL_PARSE_THREAD;
  process.env.FERRY_JSONL_PARSE_THREAD = setting;
  try {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const ctx = { options: jsonlOptions.parse({ path: 'big.jsonl', ...options }), baseDir: dir, syncName: 's', logger, signal: new AbortController().signal };
    const out: SourceRecord[] = [];
    for await (const record of readFileSource(ctx, parseJsonFile)) out.push(record);
    return out;
  } finally {
    if (before === undefined) delete process.env.FERRY_JSONL_PARSE_THREAD;
    else process.env.FERRY_JSONL_PARSE_THREAD = before;
  }
}

describe('jsonl parse thread', () => {
  it('reads exactly what the run’s own thread reads, skipped lines and repaired bytes included', async () => {
    const dir = fixture('jsonl-thread', { 'in.jsonl': quirky(6000) });
    const here = await expectSame(join(dir, 'in.jsonl'), { onInvalidLine: 'skip' }, ['id']);
    // The fixture holds what it should, so the comparison is not vacuous.
    expect(here.rows.length).toBeGreaterThan(5800);
    expect(here.skipped.some((s) => s.reason.includes('U+FFFD'))).toBe(true);
    expect(here.skipped.some((s) => s.reason.startsWith('invalid JSON'))).toBe(true);
    expect(here.warnings.some((w) => w.includes('invalid JSON values skipped in all'))).toBe(true);
    expect(here.rows[0]).toEqual({ data: { id: 'first', n: 0 }, line: 1, dataText: '{"id":"first","n":0}', file: 'in.jsonl', key: undefined });
    expect(here.rows).toContainEqual(expect.objectContaining({ data: { value: [207, 'array'] }, line: 208 }));
    expect(here.rows).toContainEqual(expect.objectContaining({ data: { id: 'last109' }, line: 110 }));
  });

  it('reads gzip, includeFileName and single-byte encodings as the run’s own thread does', async () => {
    const body = quirky(3000);
    const dir = fixture('jsonl-thread-enc', { 'in.jsonl.gz': gzipSync(body), 'latin1.jsonl': body.subarray(3) });
    const gz = await expectSame(join(dir, 'in.jsonl.gz'), { onInvalidLine: 'skip', includeFileName: true });
    expect(gz.rows).toContainEqual(expect.objectContaining({ data: { id: 'r7', name: 'name é 7', amount: 7.5, ok: true, tags: ['a', null], _file: 'in.jsonl' } }));
    const latin1 = await expectSame(join(dir, 'latin1.jsonl'), { onInvalidLine: 'skip', encoding: 'latin1' });
    expect(latin1.skipped.some((s) => s.reason.includes('U+FFFD'))).toBe(false);
  });

  it('stops at the same line for a malformed line (onInvalidLine: fail) and for invalid bytes (onInvalidEncoding: reject)', async () => {
    const dir = fixture('jsonl-thread-fail', { 'in.jsonl': quirky(3000) });
    const malformed = await expectSame(join(dir, 'in.jsonl'));
    expect(malformed.failure).toMatch(/^invalid JSON at in\.jsonl:4: /);
    expect(malformed.rows).toHaveLength(3);
    const rejected = await expectSame(join(dir, 'in.jsonl'), { onInvalidLine: 'skip', onInvalidEncoding: 'reject' });
    expect(rejected.failure).toMatch(/^in\.jsonl:3: bytes that are not valid utf8/);
  });

  it('gives the same records and origin keys, and parses a record’s data only when it is read', async () => {
    const line = (i: number): string => `{"id":${i % 7 === 0 ? i : `"k${i}"`},"name":"name ${i}","note":"${'x'.repeat(60)}"}\n`;
    const count = 5000;
    const dir = fixture('jsonl-thread-records', { 'big.jsonl': Array.from({ length: count }, (_, i) => line(i)).join('') });
    for (const options of [{ primaryKey: 'id' }, { primaryKey: ['name', 'id'], includeFileName: true }, {}]) {
      const threaded = await records(dir, 'on', options);
      const here = await records(dir, 'off', options);
      expect(threaded).toHaveLength(count);
      // Read before the data: the origin key and the text come without a parse (each record holds its row, unparsed).
      const rowsOf = (list: SourceRecord[]) => list.map((r) => (r as unknown as { row?: { parsed?: unknown } }).row);
      expect(rowsOf(threaded).every((row) => row !== undefined)).toBe(true);
      const parsedBefore = rowsOf(threaded).filter((row) => row!.parsed !== undefined).length;
      expect(threaded.map((r) => ({ origin: r.origin, dataText: r.dataText }))).toEqual(here.map((r) => ({ origin: r.origin, dataText: r.dataText })));
      expect(parsedBefore).toBe(0);
      expect(threaded.map((r) => r.data)).toEqual(here.map((r) => r.data));
    }
  });
});

describe('FERRY_JSONL_PARSE_THREAD', () => {
  it('is auto (large files, with a core to spare) unless set to on or off, and refuses anything else by name', () => {
    expect(threadFromBytesSetting({}, 4)).toBe(THREAD_FROM_BYTES);
    expect(threadFromBytesSetting({ FERRY_JSONL_PARSE_THREAD: ' Auto ' }, 4)).toBe(THREAD_FROM_BYTES);
    expect(threadFromBytesSetting({}, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(threadFromBytesSetting({ FERRY_JSONL_PARSE_THREAD: 'OFF' }, 4)).toBe(Number.POSITIVE_INFINITY);
    expect(threadFromBytesSetting({ FERRY_JSONL_PARSE_THREAD: 'on' }, 2)).toBe(0);
    expect(() => threadFromBytesSetting({ FERRY_JSONL_PARSE_THREAD: 'yes' })).toThrow(
      expect.objectContaining({ code: 'FERRY_CONFIG_INVALID', message: expect.stringContaining('FERRY_JSONL_PARSE_THREAD must be "auto", "on" or "off", found "yes"') }),
    );
  });
});

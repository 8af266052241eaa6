/**
 * The csv source's parse thread (connectors/sources/csv/parse-thread/):
 * a file parsed there gives exactly what a file parsed in the run's own
 * thread gives — rows, lines, dataText, repaired rows and bytes, warnings,
 * failures and where they are reported — and the thread holds only a few
 * batches ahead of the reader, and stops when the read stops.
 */
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvOptions } from '../../../connectors/sources/csv/options.js';
import { parseCsvFile } from '../../../connectors/sources/csv/parse-file.js';
import { startCsvParseThread, threadFromBytesSetting } from '../../../connectors/sources/csv/parse-thread/parse-thread.js';
import { THREAD_FROM_BYTES } from '../../../connectors/sources/_shared/parse-thread/parse-thread.js';
import { BATCH_ROWS, INITIAL_CREDIT } from '../../../connectors/sources/_shared/parse-thread/parse-thread-protocol.js';
import { fixture, parseOutcome, type ParseOutcome } from './helpers.js';

const HERE = Number.POSITIVE_INFINITY;
const THREAD = 0;

/** A UTF-8 file with everything a reader must count lines across: BOM, CRLF, blank lines, quoted line breaks, ragged rows, invalid bytes. */
function quirky(rows: number): Buffer {
  const parts: Buffer[] = [Buffer.from('\ufeffid,name,note\r\n')];
  for (let i = 0; i < rows; i++) {
    if (i % 53 === 1) parts.push(Buffer.from(`${i},"two\r\nlines, ""quoted""",x\r\n`));
    else if (i % 71 === 2) parts.push(Buffer.concat([Buffer.from(`${i},bad `), Buffer.from([0xff, 0xfe]), Buffer.from(' byte,y\r\n')]));
    else if (i % 89 === 3) parts.push(Buffer.from(`${i},ragged\r\n`));
    else if (i % 97 === 4) parts.push(Buffer.from('\r\n'));
    else if (i % 101 === 5) parts.push(Buffer.from(`${i},surplus,a,b\r\n`));
    else parts.push(Buffer.from(`${i},name é ${i},note\r\n`));
  }
  return Buffer.concat(parts);
}

function read(path: string, threadFromBytes: number, options: Record<string, unknown> = {}): Promise<ParseOutcome> {
  const parsed = csvOptions.parse({ path: 'in.csv', ...options });
  return parseOutcome(
    (context) => parseCsvFile({ absolute: path, relative: 'in.csv' }, parsed, context, threadFromBytes),
    (row) => ({ data: row.data, line: row.line, dataText: row.dataText }),
  );
}

async function expectSame(path: string, options: Record<string, unknown> = {}): Promise<ParseOutcome> {
  const here = await read(path, HERE, options);
  const thread = await read(path, THREAD, options);
  expect(thread).toEqual(here);
  return here;
}

describe('csv parse thread', () => {
  it('reads exactly what the run’s own thread reads, lines and repairs included', async () => {
    const dir = fixture('csv-thread', { 'in.csv': quirky(6000) });
    const here = await expectSame(join(dir, 'in.csv'));
    // The fixture holds what it should, so the comparison is not vacuous.
    expect(here.rows.length).toBeGreaterThan(5900);
    expect(here.skipped.some((s) => s.reason.includes('U+FFFD'))).toBe(true);
    expect(here.skipped.some((s) => s.reason.includes('columns where the header has'))).toBe(true);
    expect(here.rows).toContainEqual(expect.objectContaining({ data: { id: '1', name: 'two\r\nlines, "quoted"', note: 'x' }, line: 3 }));
  });

  it('reads gzip and single-byte encodings as the run’s own thread does', async () => {
    const body = quirky(3000);
    const dir = fixture('csv-thread-enc', { 'in.csv.gz': gzipSync(body), 'latin1.csv': body.subarray(3) });
    const gz = await expectSame(join(dir, 'in.csv.gz'));
    expect(gz.rows.length).toBeGreaterThan(2900);
    const latin1 = await expectSame(join(dir, 'latin1.csv'), { encoding: 'latin1' });
    expect(latin1.skipped.some((s) => s.reason.includes('U+FFFD'))).toBe(false);
  });

  it('stops at the same line with onInvalidEncoding: reject', async () => {
    const dir = fixture('csv-thread-reject', { 'in.csv': quirky(3000) });
    const outcome = await expectSame(join(dir, 'in.csv'), { onInvalidEncoding: 'reject' });
    expect(outcome.failure).toMatch(/^in\.csv:\d+: bytes that are not valid utf8/);
  });

  it('hands over the rows before a parse error, then the same error', async () => {
    const good = Array.from({ length: 5000 }, (_, i) => `${i},ok`).join('\n');
    const dir = fixture('csv-thread-quote', { 'in.csv': `id,name\n${good}\n5000,"unclosed\n5001,after\n` });
    const outcome = await expectSame(join(dir, 'in.csv'));
    expect(outcome.rows).toHaveLength(5000);
    expect(outcome.failure).toMatch(/^reading in\.csv:5002 failed: Quote Not Closed/);
  });

  it('rejects with the abort reason when the run stops, instead of ending the file early', async () => {
    const dir = fixture('csv-thread-abort', { 'in.csv': quirky(20_000) });
    const stop = new AbortController();
    const context = { signal: stop.signal, syncName: 's', logger: { debug() {}, info() {}, warn() {}, error() {} } };
    const rows = parseCsvFile({ absolute: join(dir, 'in.csv'), relative: 'in.csv' }, csvOptions.parse({ path: 'in.csv' }), context, THREAD);
    let read = 0;
    const reason = new Error('stopped by the test');
    const reading = (async () => {
      for await (const _ of rows) if (++read === 100) stop.abort(reason);
    })();
    await expect(reading).rejects.toBe(reason);
    expect(read).toBeLessThan(20_000);
  });

  it('holds only a few batches ahead of a reader that does not read, and stops with it', async () => {
    const dir = fixture('csv-thread-credit', { 'in.csv': quirky(30_000) });
    const thread = startCsvParseThread(join(dir, 'in.csv'), csvOptions.parse({ path: 'in.csv' }), new AbortController().signal);
    expect(await thread.wait()).toBe(false);
    // Give the thread time to run ahead if it would.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = (thread as unknown as { queue: unknown[] }).queue.length;
    expect(held).toBeLessThanOrEqual(INITIAL_CREDIT);
    let taken = 0;
    while (thread.read() !== null) taken++;
    // What it held ahead, and no more: the credit stops it, not the file's end.
    expect(taken).toBeLessThanOrEqual(INITIAL_CREDIT * BATCH_ROWS);
    expect(taken).toBeLessThan(30_000);
    thread.destroy();
    await expect(thread.wait()).resolves.toBe(true);
  });
});

describe('FERRY_CSV_PARSE_THREAD', () => {
  it('is auto unless set to off, and refuses anything else by name', () => {
    expect(threadFromBytesSetting({})).toBe(THREAD_FROM_BYTES);
    expect(threadFromBytesSetting({ FERRY_CSV_PARSE_THREAD: '' })).toBe(THREAD_FROM_BYTES);
    expect(threadFromBytesSetting({ FERRY_CSV_PARSE_THREAD: ' Auto ' })).toBe(THREAD_FROM_BYTES);
    expect(threadFromBytesSetting({ FERRY_CSV_PARSE_THREAD: 'OFF' })).toBe(Number.POSITIVE_INFINITY);
    expect(() => threadFromBytesSetting({ FERRY_CSV_PARSE_THREAD: 'no' })).toThrow(
      expect.objectContaining({ code: 'FERRY_CONFIG_INVALID', message: expect.stringContaining('FERRY_CSV_PARSE_THREAD must be "auto", "on" or "off", found "no"') }),
    );
  });

  it('decides whether a large file is parsed on a thread, with the same rows either way', async () => {
    const header = 'id,name,note\n';
    const line = (i: number): string => `${i},name ${i},${'x'.repeat(40)}\n`;
    const rows = Math.ceil((THREAD_FROM_BYTES - header.length) / line(0).length) + 100;
    const dir = fixture('csv-thread-setting', { 'big.csv': header + Array.from({ length: rows }, (_, i) => line(i)).join('') });
    const readWith = async (setting: string | undefined) => {
      const before = process.env.FERRY_CSV_PARSE_THREAD;
      if (setting === undefined) delete process.env.FERRY_CSV_PARSE_THREAD;
      else process.env.FERRY_CSV_PARSE_THREAD = setting;
      try {
        const debug: string[] = [];
        const logger = { info() {}, warn() {}, error() {}, debug: (_: unknown, message?: string) => void debug.push(String(message)) };
        const context = { signal: new AbortController().signal, syncName: 's', logger };
        let count = 0;
        let last: unknown;
        // No threadFromBytes given: the default is what the setting says.
        for await (const row of parseCsvFile({ absolute: join(dir, 'big.csv'), relative: 'big.csv' }, csvOptions.parse({ path: 'big.csv' }), context)) {
          count++;
          last = { data: row.data, line: row.line };
        }
        return { count, last, threaded: debug.some((m) => m.startsWith('big.csv: parsed on a parse thread')) };
      } finally {
        if (before === undefined) delete process.env.FERRY_CSV_PARSE_THREAD;
        else process.env.FERRY_CSV_PARSE_THREAD = before;
      }
    };
    const auto = await readWith(undefined);
    const off = await readWith('off');
    expect(auto.threaded).toBe(true);
    expect(off.threaded).toBe(false);
    expect(auto.count).toBe(rows);
    expect(off).toEqual({ ...auto, threaded: false });
    await expect(readWith('sometimes')).rejects.toThrow('FERRY_CSV_PARSE_THREAD must be');
  });
});

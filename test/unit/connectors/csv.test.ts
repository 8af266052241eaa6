import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import csv from '../../../connectors/sources/csv/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import { readAll, readContext, rejection, tempDir, type Captured } from './helpers.js';

const CRM = '/work/shared/datasets/crm-sales-opportunities';

function fixture(files: Record<string, string | Buffer>): string {
  const dir = tempDir('csv');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

describe('csv source on the CRM files (CRLF, blanks, escaped quotes)', () => {
  it('reads all 8800 deals with their lines and blank values as empty strings', async () => {
    const records = await readAll(csv, { path: 'sales_pipeline.csv', primaryKey: 'opportunity_id' }, { baseDir: CRM });
    expect(records).toHaveLength(8800);
    expect(records[0]).toEqual({
      data: {
        opportunity_id: '1C1I7A6R',
        sales_agent: 'Moses Frase',
        product: 'GTX Plus Basic',
        account: 'Cancity',
        deal_stage: 'Won',
        engage_date: '2016-10-20',
        close_date: '2017-03-01',
        close_value: '1054',
      },
      origin: { stream: 'sales_pipeline.csv', file: 'sales_pipeline.csv', line: 2, key: '1C1I7A6R' },
      dataText: expect.any(String),
    });
    expect(records.at(-1)?.origin.line).toBe(8801);
    expect(records.map((r) => r.origin.line)).toEqual(records.map((_, i) => i + 2));
    expect(records.filter((r) => r.data.account === '')).toHaveLength(1425);
    expect(records.filter((r) => r.data.close_value === '')).toHaveLength(2089);
    expect(records.filter((r) => r.data.deal_stage === 'Won')).toHaveLength(4238);
    // CRLF must not leak into the last column.
    expect(records.some((r) => String(r.data.close_value).includes('\r'))).toBe(false);
  });

  it('unescapes doubled quotes and keeps trailing spaces (data_dictionary.csv)', async () => {
    const records = await readAll(csv, { path: 'data_dictionary.csv' }, { baseDir: CRM });
    expect(records).toHaveLength(21);
    const engage = records.find((r) => r.data.Field === 'engage_date');
    expect(engage?.data.Description).toBe('Date in which the "Engaging" deal stage was initiated');
    expect(engage?.origin.line).toBe(20);
    expect(records.find((r) => r.data.Table === 'sales_pipeline' && r.data.Field === 'sales_agent')?.data.Description).toBe('Sales agent ');
    const trimmed = await readAll(csv, { path: 'data_dictionary.csv', trim: true }, { baseDir: CRM });
    expect(trimmed.find((r) => r.data.Table === 'sales_pipeline' && r.data.Field === 'sales_agent')?.data.Description).toBe('Sales agent');
  });

  it('discovers fields with inferred types and a line-count estimate', async () => {
    const [stream] = await csv.discover(readContext(csv, { path: 'sales_pipeline.csv', primaryKey: 'opportunity_id' }, { baseDir: CRM }));
    expect(stream?.name).toBe('sales_pipeline.csv');
    expect(stream?.estimatedCount).toBe(8800);
    expect(stream?.primaryKey).toEqual(['opportunity_id']);
    const types = Object.fromEntries(stream!.fields.map((f) => [f.name, f.type]));
    expect(types).toEqual({
      opportunity_id: 'string',
      sales_agent: 'string',
      product: 'string',
      account: 'string',
      deal_stage: 'string',
      engage_date: 'date',
      close_date: 'date',
      close_value: 'int',
    });
    expect(stream?.fields.find((f) => f.name === 'close_date')?.nullable).toBe(true);
    expect(stream?.cursorCandidates).toContain('close_date');
    const [accounts] = await csv.discover(readContext(csv, { path: 'accounts.csv' }, { baseDir: CRM }));
    expect(accounts?.fields.find((f) => f.name === 'revenue')?.type).toBe('double');
  });

  it('stops with the abort reason when the signal fires', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const record of csv.read(readContext(csv, { path: 'sales_pipeline.csv' }, { baseDir: CRM, signal: controller.signal }))) {
          seen.push(record.origin.line!);
          if (seen.length === 10) controller.abort();
        }
      })(),
    );
    expect(error).toBe(controller.signal.reason);
    expect(seen).toHaveLength(10);
  });
});

describe('csv source options', () => {
  it('decompresses gzip by extension or by option', async () => {
    const dir = fixture({ 'a.csv.gz': gzipSync('id,name\r\n1,Ann\r\n2,Bob\r\n'), 'packed.bin': gzipSync('id\n7\n') });
    const records = await readAll(csv, { path: 'a.csv.gz' }, { baseDir: dir });
    expect(records.map((r) => [r.data, r.origin.line])).toEqual([
      [{ id: '1', name: 'Ann' }, 2],
      [{ id: '2', name: 'Bob' }, 3],
    ]);
    expect((await readAll(csv, { path: 'packed.bin', compression: 'gzip' }, { baseDir: dir }))[0]?.data).toEqual({ id: '7' });
    const [stream] = await csv.discover(readContext(csv, { path: 'a.csv.gz' }, { baseDir: dir }));
    expect(stream?.estimatedCount).toBeUndefined();
  });

  it('decodes latin1 and utf16le, and strips a UTF-8 BOM', async () => {
    const dir = fixture({
      'latin1.csv': iconv.encode('name;city\nMüller;Zürich\n', 'latin1'),
      'utf16.csv': iconv.encode('\ufeffname,city\nJosé,São Paulo\n', 'utf16le'),
      'bom.csv': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,x\n1,ü\n')]),
    });
    const latin = await readAll(csv, { path: 'latin1.csv', delimiter: ';', encoding: 'latin1' }, { baseDir: dir });
    expect(latin[0]?.data).toEqual({ name: 'Müller', city: 'Zürich' });
    const utf16 = await readAll(csv, { path: 'utf16.csv', encoding: 'utf16le' }, { baseDir: dir });
    expect(utf16[0]?.data).toEqual({ name: 'José', city: 'São Paulo' });
    expect((await readAll(csv, { path: 'bom.csv' }, { baseDir: dir }))[0]?.data).toEqual({ id: '1', x: 'ü' });
    expect(csv.options.safeParse({ path: 'x.csv', encoding: 'klingon' }).success).toBe(false);
  });

  it('reads every file a glob matches, in sorted order, with paths relative to baseDir', async () => {
    const dir = fixture({ 'b.csv': 'id\n3\n', 'a.csv': 'id\n1\n2\n', 'c.txt': 'id\n9\n' });
    const records = await readAll(csv, { path: '*.csv' }, { baseDir: dir });
    expect(records.map((r) => [r.origin.file, r.origin.line, r.data.id, r.origin.stream])).toEqual([
      ['a.csv', 2, '1', '*.csv'],
      ['a.csv', 3, '2', '*.csv'],
      ['b.csv', 2, '3', '*.csv'],
    ]);
  });

  it('takes column names from a header list (the first line is data) or numbers them', async () => {
    const dir = fixture({ 'plain.csv': 'x,1\ny,2\n' });
    const named = await readAll(csv, { path: 'plain.csv', header: ['key', 'n'] }, { baseDir: dir });
    expect(named.map((r) => [r.data, r.origin.line])).toEqual([
      [{ key: 'x', n: '1' }, 1],
      [{ key: 'y', n: '2' }, 2],
    ]);
    const numbered = await readAll(csv, { path: 'plain.csv', header: false }, { baseDir: dir });
    expect(numbered[1]?.data).toEqual({ column_1: 'y', column_2: '2' });
  });

  it('gives each record a dataText that is equal only where the data is (header included), and none for a value with a NUL', async () => {
    const dir = fixture({
      'a.csv': 'id,note\n1,same\n2,same\n1,same\n3,"x\u0000y"\n4,"a"",""b"\n4,a\n',
      'b.csv': 'id,remark\n1,same\n',
    });
    const records = await readAll(csv, { path: '*.csv' }, { baseDir: dir });
    const texts = records.map((r) => r.dataText);
    expect(records.map((r) => r.data)).toEqual([
      { id: '1', note: 'same' },
      { id: '2', note: 'same' },
      { id: '1', note: 'same' },
      { id: '3', note: 'x\u0000y' },
      { id: '4', note: 'a","b' },
      { id: '4', note: 'a' },
      { id: '1', remark: 'same' },
    ]);
    expect(texts[0]).toBe(texts[2]);
    expect(texts[3]).toBeUndefined();
    // Every other pair differs: another value, another header (b.csv), or values that join alike.
    const others = [texts[0], texts[1], texts[4], texts[5], texts[6]];
    expect(new Set(others).size).toBe(others.length);
  });

  it('honours delimiter, quote, blank-header and duplicate-header handling', async () => {
    const dir = fixture({ 'semi.csv': "a;b;;a\n'x;y';2;3;4\n" });
    const records = await readAll(csv, { path: 'semi.csv', delimiter: ';', quote: "'" }, { baseDir: dir });
    expect(records[0]?.data).toEqual({ a: 'x;y', b: '2', column_3: '3', a_2: '4' });
  });

  it('gives a quoted multi-line field the line it starts on (CRLF and LF, blank lines between)', async () => {
    for (const eol of ['\r\n', '\n']) {
      const text = ['id,note', '1,"first', 'second', 'third"', '', '2,plain', '3,"a ""quoted""', 'line"', '4,end'].join(eol) + eol;
      const dir = fixture({ 'multi.csv': text });
      const records = await readAll(csv, { path: 'multi.csv' }, { baseDir: dir });
      expect(records.map((r) => [r.data.id, r.origin.line])).toEqual([
        ['1', 2],
        ['2', 6],
        ['3', 7],
        ['4', 9],
      ]);
      expect(records[0]?.data.note).toBe(`first${eol}second${eol}third`);
    }
  });

  it('keeps rows with a wrong column count (surplus under _extra) and warns with file:line', async () => {
    const dir = fixture({ 'ragged.csv': 'a,b\n1,2\n3\n4,5,6,7\n' });
    const captured: Captured = { warnings: [], skipped: [] };
    const records = await readAll(csv, { path: 'ragged.csv' }, { baseDir: dir, captured });
    expect(records.map((r) => r.data)).toEqual([{ a: '1', b: '2' }, { a: '3' }, { a: '4', b: '5', _extra: ['6', '7'] }]);
    expect(captured.skipped?.map((s) => [s.action, s.origin.line])).toEqual([
      ['repaired', 3],
      ['repaired', 4],
    ]);
    expect(captured.warnings).toHaveLength(2);
    expect(captured.warnings[0]).toContain('ragged.csv:3');
    expect(captured.warnings[1]).toContain('ragged.csv:4');
    const quiet: Captured = { warnings: [] };
    await readAll(csv, { path: 'ragged.csv', relaxColumnCount: true }, { baseDir: dir, captured: quiet });
    expect(quiet.warnings).toEqual([]);
  });

  it('casts numbers and booleans only when asked, keeping leading zeros', async () => {
    const dir = fixture({ 'typed.csv': 'n,f,b,zip,blank\n42,3.5,true,02134,\n' });
    expect((await readAll(csv, { path: 'typed.csv' }, { baseDir: dir }))[0]?.data).toEqual({ n: '42', f: '3.5', b: 'true', zip: '02134', blank: '' });
    expect((await readAll(csv, { path: 'typed.csv', cast: true }, { baseDir: dir }))[0]?.data).toEqual({ n: 42, f: 3.5, b: true, zip: '02134', blank: '' });
  });

  it('names file and sync when the path or glob matches nothing', async () => {
    const dir = tempDir('csv-missing');
    for (const path of ['nope.csv', 'nothing/*.csv']) {
      const error = await rejection(readAll(csv, { path }, { baseDir: dir }));
      expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
      expect((error as Error).message).toContain(path);
      expect((error as { where?: string }).where).toContain('test-sync');
    }
    const checkError = await rejection(csv.check!(readContext(csv, { path: 'nope.csv' }, { baseDir: dir })));
    expect(isFerryError(checkError, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
  });

  it('fails a broken file with FERRY_SOURCE_READ_FAILED naming the file', async () => {
    const dir = fixture({ 'broken.csv': 'a,b\n1,2\n3,"never closed\n' });
    const error = await rejection(readAll(csv, { path: 'broken.csv' }, { baseDir: dir }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toContain('broken.csv:3');
  });
});

describe('csv bytes that are not valid UTF-8', () => {
  const latin1 = iconv.encode('id,name\n1,ann\n2,café\n3,bob\n4,naïve\n', 'latin1');

  it('replace: reads U+FFFD, reports each line as repaired and warns once with the line numbers', async () => {
    const dir = fixture({ 'people.csv': latin1 });
    const captured: Captured = { warnings: [], skipped: [] };
    const records = await readAll(csv, { path: 'people.csv' }, { baseDir: dir, captured });
    expect(records.map((r) => r.data.name)).toEqual(['ann', 'caf\uFFFD', 'bob', 'na\uFFFDve']);
    expect(captured.skipped?.map((s) => [s.action, s.origin.file, s.origin.line])).toEqual([
      ['repaired', 'people.csv', 3],
      ['repaired', 'people.csv', 5],
    ]);
    expect(captured.warnings).toHaveLength(1);
    expect(captured.warnings[0]).toContain('(line 3, 5)');
  });

  it('replace: on many such lines, counts them all and names the first ten', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => `${i},caf\u00e9 ${i}`).join('\n');
    const dir = fixture({ 'many.csv': iconv.encode(`id,name\n${rows}\n`, 'latin1') });
    const captured: Captured = { warnings: [], skipped: [] };
    const records = await readAll(csv, { path: 'many.csv' }, { baseDir: dir, captured });
    expect(records).toHaveLength(25);
    expect(captured.skipped).toHaveLength(25);
    expect(captured.warnings).toEqual([expect.stringContaining('many.csv: 25 line(s) had bytes that are not valid utf8')]);
    expect(captured.warnings[0]).toContain('(line 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …)');
  });

  it('reject: stops at the first such line, before yielding its record', async () => {
    const dir = fixture({ 'people.csv': latin1 });
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const record of csv.read(readContext(csv, { path: 'people.csv', onInvalidEncoding: 'reject' }, { baseDir: dir }))) seen.push(record.data.name);
      })(),
    );
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toContain('people.csv:3');
    expect(seen).toEqual(['ann']);
  });

  it('a declared single-byte encoding reads the same bytes as written, with nothing reported', async () => {
    const dir = fixture({ 'people.csv': latin1 });
    const captured: Captured = { warnings: [], skipped: [] };
    const records = await readAll(csv, { path: 'people.csv', encoding: 'latin1' }, { baseDir: dir, captured });
    expect(records.map((r) => r.data.name)).toEqual(['ann', 'café', 'bob', 'naïve']);
    expect(captured.skipped).toEqual([]);
  });
});

describe('csv incremental reads', () => {
  const text = 'id,updated\n1,2024-01-01T00:00:00Z\n2,2024-03-01T00:00:00Z\n3,2024-02-01T00:00:00Z\n4,\n5,2024-03-01T00:00:00Z\n';

  it('sets cursors and emits only records past the stored position', async () => {
    const dir = fixture({ 'inc.csv': text });
    const all = await readAll(csv, { path: 'inc.csv', primaryKey: 'id' }, { baseDir: dir, incremental: { cursorField: 'updated' } });
    expect(all.map((r) => r.cursor)).toEqual(['2024-01-01T00:00:00Z', '2024-03-01T00:00:00Z', '2024-02-01T00:00:00Z', null, '2024-03-01T00:00:00Z']);
    const after = await readAll(csv, { path: 'inc.csv', primaryKey: 'id' }, {
      baseDir: dir,
      incremental: { cursorField: 'updated', after: { value: '2024-02-01T00:00:00.000+00:00' } },
    });
    // Equal cursor (record 3) is skipped; the record without a cursor is kept.
    expect(after.map((r) => r.data.id)).toEqual(['2', '4', '5']);
    const tie = await readAll(csv, { path: 'inc.csv', primaryKey: 'id' }, {
      baseDir: dir,
      incremental: { cursorField: 'updated', after: { value: '2024-03-01T00:00:00Z', key: '2' } },
    });
    expect(tie.map((r) => r.data.id)).toEqual(['4', '5']);
    const lagged = await readAll(csv, { path: 'inc.csv' }, {
      baseDir: dir,
      incremental: { cursorField: 'updated', after: { value: '2024-03-01T00:00:00Z' }, lag: 40 * 86_400 },
    });
    expect(lagged.map((r) => r.data.id)).toEqual(['2', '3', '4', '5']);
  });

  it('compares numeric cursors as numbers', async () => {
    const dir = fixture({ 'num.csv': 'id,seq\na,9\nb,10\nc,100\n' });
    const records = await readAll(csv, { path: 'num.csv' }, { baseDir: dir, incremental: { cursorField: 'seq', after: { value: 9 } } });
    expect(records.map((r) => r.data.id)).toEqual(['b', 'c']);
  });
});

await describeSourceConformance(csv, {
  title: 'csv conformance: CRM sales pipeline',
  options: { path: 'sales_pipeline.csv' },
  baseDir: CRM,
  expectedCount: 8800,
  primaryKey: ['opportunity_id'],
  cursorField: 'close_date',
});

let sortedDir = '';
await describeSourceConformance(csv, {
  title: 'csv conformance: sorted incremental file',
  setup: () => {
    const rows = Array.from({ length: 40 }, (_, i) => `${String(i + 1).padStart(3, '0')},2024-01-${String(Math.floor(i / 3) + 1).padStart(2, '0')},row ${i + 1}`);
    sortedDir = fixture({ 'sorted.csv': `id,day,label\r\n${rows.join('\r\n')}\r\n` });
  },
  options: { path: 'sorted.csv' },
  baseDir: () => sortedDir,
  expectedCount: 40,
  primaryKey: ['id'],
  cursorField: 'day',
  sorted: true,
});

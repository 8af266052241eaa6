import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import jsonl from '../../../connectors/sources/jsonl/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import { readAll, readContext, rejection, tempDir, type Captured } from './helpers.js';

const QMSUM = '/work/shared/datasets/qmsum';
const HARPER = '/work/shared/datasets/harper-valley-calls';

function fixture(files: Record<string, string | Buffer>): string {
  const dir = tempDir('jsonl');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

describe('jsonl source: JSON Lines', () => {
  it('yields one record per line with its line number, skipping blank lines (CRLF too)', async () => {
    const dir = fixture({ 'events.jsonl': '{"id":1,"v":"a"}\r\n\r\n  \r\n{"id":2,"v":"b"}\r\n{"id":3,"nested":{"x":[1,2]}}' });
    const records = await readAll(jsonl, { path: 'events.jsonl', primaryKey: 'id' }, { baseDir: dir });
    expect(records).toEqual([
      { data: { id: 1, v: 'a' }, origin: { stream: 'events.jsonl', file: 'events.jsonl', line: 1, key: '1' }, dataText: '{"id":1,"v":"a"}' },
      { data: { id: 2, v: 'b' }, origin: { stream: 'events.jsonl', file: 'events.jsonl', line: 4, key: '2' }, dataText: '{"id":2,"v":"b"}' },
      { data: { id: 3, nested: { x: [1, 2] } }, origin: { stream: 'events.jsonl', file: 'events.jsonl', line: 5, key: '3' }, dataText: '{"id":3,"nested":{"x":[1,2]}}' },
    ]);
  });

  it('reads lines that cross reads whole: longer than a read, and with characters split between two', async () => {
    // 3,000 lines of some 50-130 bytes, one of 150 KB among them: reads end mid-line and mid-character.
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: i, name: `Acme – ${'é'.repeat(i % 40)}`, note: i === 1234 ? 'x'.repeat(150_000) : '' }));
    const dir = fixture({ 'long.jsonl': `${lines.join('\n')}\n` });
    const records = await readAll(jsonl, { path: 'long.jsonl', primaryKey: 'id' }, { baseDir: dir });
    expect(records).toHaveLength(3000);
    expect(records.map((r) => r.dataText)).toEqual(lines);
    expect(records.map((r) => r.origin.line)).toEqual(lines.map((_, i) => i + 1));
  });

  it('gives the line as dataText (after the file name with includeFileName), and none under a pointer', async () => {
    const dir = fixture({ 'a.jsonl': '{"id":1}\n7\n', 'b.jsonl': '{"id":1}\n', 'p.jsonl': '{"items":[{"id":1},{"id":2}]}\n' });
    const plain = await readAll(jsonl, { path: '[ab].jsonl' }, { baseDir: dir });
    expect(plain.map((r) => [r.data, r.dataText])).toEqual([
      [{ id: 1 }, '{"id":1}'],
      [{ value: 7 }, '7'],
      [{ id: 1 }, '{"id":1}'],
    ]);
    const named = await readAll(jsonl, { path: '[ab].jsonl', includeFileName: true }, { baseDir: dir });
    expect(named.map((r) => r.dataText)).toEqual(['a.jsonl\u0000{"id":1}', 'a.jsonl\u00007', 'b.jsonl\u0000{"id":1}']);
    const pointed = await readAll(jsonl, { path: 'p.jsonl', pointer: '/items' }, { baseDir: dir });
    expect(pointed.map((r) => r.data)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(pointed.every((r) => r.dataText === undefined)).toBe(true);
  });

  it('fails on a malformed line naming file:line, or skips it with a warning when asked', async () => {
    const dir = fixture({ 'bad.jsonl': '{"id":1}\n{"id":2,,}\n{"id":3}\n' });
    const error = await rejection(readAll(jsonl, { path: 'bad.jsonl' }, { baseDir: dir }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toContain('bad.jsonl:2');
    expect((error as { where?: string }).where).toContain('bad.jsonl:2');
    const captured: Captured = { warnings: [], skipped: [] };
    const records = await readAll(jsonl, { path: 'bad.jsonl', onInvalidLine: 'skip' }, { baseDir: dir, captured });
    expect(records.map((r) => r.data.id)).toEqual([1, 3]);
    expect(captured.skipped).toEqual([
      { action: 'skipped', origin: { stream: 'bad.jsonl', file: 'bad.jsonl', line: 2 }, reason: expect.stringContaining('invalid JSON') as unknown },
    ]);
    expect(captured.warnings).toHaveLength(1);
    expect(captured.warnings[0]).toContain('bad.jsonl:2');
  });

  it('wraps non-object values, adds _file, reads gzip and other encodings', async () => {
    const dir = fixture({
      'mixed.jsonl.gz': gzipSync('"text"\n[1,2]\n{"a":1}\n'),
      'latin.jsonl': iconv.encode('{"name":"Müller"}\n', 'latin1'),
    });
    const records = await readAll(jsonl, { path: 'mixed.jsonl.gz', includeFileName: true }, { baseDir: dir });
    expect(records.map((r) => r.data)).toEqual([
      { value: 'text', _file: 'mixed.jsonl.gz' },
      { value: [1, 2], _file: 'mixed.jsonl.gz' },
      { a: 1, _file: 'mixed.jsonl.gz' },
    ]);
    expect((await readAll(jsonl, { path: 'latin.jsonl', encoding: 'latin1' }, { baseDir: dir }))[0]?.data).toEqual({ name: 'Müller' });
  });

  it('emits only records past the stored cursor on incremental reads', async () => {
    const dir = fixture({ 'inc.jsonl': ['{"id":"a","ts":5}', '{"id":"b","ts":12}', '{"id":"c","ts":12}', '{"id":"d","ts":3}', '{"id":"e"}'].join('\n') });
    const records = await readAll(jsonl, { path: 'inc.jsonl', primaryKey: 'id' }, {
      baseDir: dir,
      incremental: { cursorField: 'ts', after: { value: 12, key: 'b' } },
    });
    expect(records.map((r) => [r.data.id, r.cursor])).toEqual([
      ['c', 12],
      ['e', null],
    ]);
  });

  it('names the path when nothing matches', async () => {
    const error = await rejection(readAll(jsonl, { path: 'missing/*.jsonl' }, { baseDir: tempDir('jsonl-missing') }));
    expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
    expect((error as Error).message).toContain('missing/*.jsonl');
  });
});

describe('jsonl source: JSON documents', () => {
  it('reads each QMSum meeting file as one record, with _file and decoded \\u escapes', async () => {
    const records = await readAll(jsonl, { path: 'ALL/*/*.json', includeFileName: true }, { baseDir: QMSUM });
    expect(records).toHaveLength(30);
    expect(records.every((r) => r.origin.line === 1)).toBe(true);
    expect(records[0]?.origin.file).toBe('ALL/test/Bed003.json');
    expect(records[0]?.data._file).toBe('ALL/test/Bed003.json');
    const files = records.map((r) => r.origin.file!);
    expect(files).toEqual([...files].sort());
    const bmr003 = records.find((r) => r.data._file === 'ALL/train/Bmr003.json');
    expect((bmr003?.data.meeting_transcripts as unknown[]).length).toBe(1832);
    const turns = records.flatMap((r) => r.data.meeting_transcripts as { content: string }[]);
    expect(turns).toHaveLength(17_298);
    expect(turns.some((turn) => turn.content.includes('\u00a0'))).toBe(true);
    expect(turns.some((turn) => turn.content.includes('\\u00a0'))).toBe(false);
  });

  it('takes one record per element of the array a pointer selects', async () => {
    const records = await readAll(jsonl, { path: 'ALL/train/ES2002a.json', pointer: '/meeting_transcripts', includeFileName: true }, { baseDir: QMSUM });
    expect(records).toHaveLength(287);
    expect(records[0]?.data).toMatchObject({ speaker: expect.any(String), content: expect.any(String), _file: 'ALL/train/ES2002a.json' });
    expect(records.map((r) => r.origin.key)).toEqual(records.map((_, i) => String(i)));
    const dotted = await readAll(jsonl, { path: 'ALL/train/ES2002a.json', pointer: 'general_query_list.0' }, { baseDir: QMSUM });
    expect(dotted).toHaveLength(1);
    expect(dotted[0]?.data.query).toEqual(expect.any(String));
  });

  it('streams Harper Valley transcript arrays element by element with lines and indexes', async () => {
    const records = await readAll(jsonl, { path: 'data/transcript/*.json', includeFileName: true }, { baseDir: HARPER });
    expect(records).toHaveLength(86);
    const first = records[0]!;
    expect(first.origin).toEqual({
      stream: 'data/transcript/*.json',
      file: 'data/transcript/0002f70f7386445b.json',
      line: 2,
      key: '0',
    });
    expect(first.data.index).toBe(1);
    expect(first.data._file).toBe('data/transcript/0002f70f7386445b.json');
    // Each element's line is where its "{" is in the file.
    const text = readFileSync(join(HARPER, 'data/transcript/0002f70f7386445b.json'), 'utf8').split('\n');
    for (const record of records.filter((r) => r.origin.file === first.origin.file)) {
      expect(text[record.origin.line! - 1]?.trim()).toBe('{');
    }
    const perFile = new Map<string, number>();
    for (const r of records) perFile.set(r.origin.file!, (perFile.get(r.origin.file!) ?? 0) + 1);
    expect([...perFile.values()]).toEqual([18, 18, 17, 16, 9, 8]);
  });

  it('discovers types: arrays as list, objects as textarea, numbers as int/double', async () => {
    const [stream] = await jsonl.discover(readContext(jsonl, { path: 'data/transcript/*.json' }, { baseDir: HARPER }));
    const types = Object.fromEntries(stream!.fields.map((f) => [f.name, f.type]));
    expect(types).toMatchObject({ dialog_acts: 'list', emotion: 'textarea', duration_ms: 'int', start_timestamp_ms: 'int', transcript: 'string' });
    expect(stream?.estimatedCount).toBeUndefined();
    const dir = fixture({ 'e.jsonl': '{"a":1.5,"d":"2024-01-02"}\n{"a":2,"d":"2024-01-03T10:00:00Z","x":true}\n' });
    const [small] = await jsonl.discover(readContext(jsonl, { path: 'e.jsonl' }, { baseDir: dir }));
    expect(small?.fields).toEqual([
      { name: 'a', type: 'double', nullable: false },
      { name: 'd', type: 'datetime', nullable: false },
      { name: 'x', type: 'boolean', nullable: true },
    ]);
    expect(small?.estimatedCount).toBe(2);
  });

  it('fails a truncated document with file:line', async () => {
    const dir = fixture({ 'cut.json': '[\n {"a": 1},\n {"a": ' });
    const error = await rejection(readAll(jsonl, { path: 'cut.json' }, { baseDir: dir }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toContain('cut.json:3');
  });
});

let sortedDir = '';
await describeSourceConformance(jsonl, {
  title: 'jsonl conformance: sorted JSON Lines',
  setup: () => {
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ id: `k${String(i).padStart(2, '0')}`, seq: Math.floor(i / 4), text: `event ${i}` }));
    sortedDir = fixture({ 'sorted.jsonl': `${lines.join('\n')}\n` });
  },
  options: { path: 'sorted.jsonl' },
  baseDir: () => sortedDir,
  expectedCount: 30,
  primaryKey: ['id'],
  cursorField: 'seq',
  sorted: true,
});

await describeSourceConformance(jsonl, {
  title: 'jsonl conformance: Harper Valley transcripts (JSON arrays)',
  options: { path: 'data/transcript/*.json', includeFileName: true },
  baseDir: HARPER,
  expectedCount: 86,
  primaryKey: ['_file', 'index'],
  cursorField: 'start_timestamp_ms',
});

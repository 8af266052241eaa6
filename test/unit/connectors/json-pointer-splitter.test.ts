import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import jsonl from '../../../connectors/sources/jsonl/index.js';
import { JsonPointerSplitter, type PointerPiece } from '../../../connectors/sources/jsonl/json-pointer-splitter.js';
import { JsonSplitError } from '../../../connectors/sources/jsonl/json-splitter.js';
import { parsePointer, select } from '../../../connectors/sources/jsonl/pointer.js';
import { isFerryError } from '../../../src/sdk/index.js';
import { readAll, rejection, tempDir, thrownBy, type Captured } from './helpers.js';

function split(text: string, pointer: string, chunkSize = text.length): PointerPiece[] {
  const splitter = new JsonPointerSplitter(parsePointer(pointer));
  const pieces: PointerPiece[] = [];
  for (let i = 0; i < text.length; i += chunkSize) pieces.push(...splitter.push(text.slice(i, i + chunkSize)));
  pieces.push(...splitter.end());
  return pieces;
}

/** What the pieces stand for, as values: what reading the whole value and selecting from it gives. */
function values(pieces: PointerPiece[]): unknown[] {
  return pieces.map((p) => (p.kind === 'missing' ? 'missing' : JSON.parse(p.piece.text)));
}

/** The same from JSON.parse of each top-level value (one per line here) and `select`. */
function wholeParse(lines: string[], pointer: string): unknown[] {
  return lines.flatMap((line) => {
    const selected = select(JSON.parse(line), parsePointer(pointer));
    if (selected === undefined) return ['missing'];
    return Array.isArray(selected) ? selected : [selected];
  });
}

describe('JsonPointerSplitter', () => {
  const lines = [
    '{"meta": {"x": [1, "a]}\\"", {"data": null}], "data": 5}, "n": -1.5e3, "data": [{"id": 1}, {"id": "two", "t": "\\u00e9"}], "after": [true, false, null]}',
    '{"data": {"id": 3}}',
    '{"other": {"data": [9]}}',
    '7',
    '"data"',
    '{"d\\u0061ta": [[1, 2], "x"]}',
    '{"data": []}',
    '{"data": null}',
    '[{"data": 1}]',
  ];

  it.each(['/data', 'meta.x', 'meta.x.2', 'meta.x.2.data', 'data.1.t', '/after/0', '/data/5', 'n'])('selects what JSON.parse and %s select, at any chunk size', (pointer) => {
    const doc = lines.join('\n');
    const expected = wholeParse(lines, pointer);
    for (const size of [1, 2, 3, 7, 64, 10_000]) expect(values(split(doc, pointer, size))).toEqual(expected);
  });

  it('gives each element of the selected array its own line and index, and a value its line', () => {
    const doc = '{\n  "meta": {"a": 1},\n  "data": [\n    {"id": 1},\n    {"id": 2}\n  ]\n}\n{"data": {"id": 3}}\n{"nothing": 0}\n';
    expect(split(doc, '/data', 4)).toEqual([
      { kind: 'selected', piece: { text: '{"id": 1}', line: 4, index: 0 } },
      { kind: 'selected', piece: { text: '{"id": 2}', line: 5, index: 1 } },
      { kind: 'selected', piece: { text: '{"id": 3}', line: 8 } },
      { kind: 'missing', line: 9 },
    ]);
  });

  it('hands elements out as they are read, before the document ends', () => {
    const splitter = new JsonPointerSplitter(['data']);
    const head = `{"meta": "${'x'.repeat(1000)}", "data": [`;
    expect(splitter.push(head)).toEqual([]);
    const first = splitter.push('{"id": 1}, {"id": 2}, ');
    expect(first.map((p) => (p.kind === 'selected' ? p.piece.text : p.kind))).toEqual(['{"id": 1}', '{"id": 2}']);
    expect(splitter.push('{"id": 3}]}')).toHaveLength(1);
    expect(splitter.end()).toEqual([]);
  });

  it('leaves a document that is a top-level array to the caller, element by element', () => {
    expect(split('[{"data": [1]}, {"data": 2}]', '/data', 3)).toEqual([
      { kind: 'element', piece: { text: '{"data": [1]}', line: 1, index: 0 } },
      { kind: 'element', piece: { text: '{"data": 2}', line: 1, index: 1 } },
    ]);
  });

  it.each([
    ['{"a": tru, "data": [1]}', /"tru" is not a JSON value/, 1],
    ['{"a": [1},\n "data": [1]}', /unexpected "}"/, 1],
    ['{"a": 1 "data": [1]}', /expected "," or "}"/, 1],
    ['{"a" 1}', /where ":" belongs/, 1],
    ['{\n"data": [1],\n"data": [2]}', /"data" appears twice/, 3],
    ['{"data": [1', /ends before the array is closed/, 1],
    ['{"meta": {"a": 1}', /ends inside a value/, 1],
    ['{1: 2}', /where an object key belongs/, 1],
  ])('rejects %j', (doc, message, line) => {
    for (const size of [1, 4, 1000]) {
      const error = thrownBy(() => split(doc, '/data', size));
      expect(error).toBeInstanceOf(JsonSplitError);
      expect((error as JsonSplitError).message).toMatch(message);
      expect((error as JsonSplitError).line).toBe(line);
    }
  });
});

describe('a .json file read through a pointer by the jsonl source', () => {
  it('reads the records of the selected array with their own lines, keys and text, and counts values with nothing there', async () => {
    const dir = tempDir('json-pointer');
    writeFileSync(join(dir, 'export.json'), '{"exportedAt": "2026-11-01",\n "calls": [\n  {"id": "a"},\n  {"id": "b"}\n ]}\n{"empty": true}\n');
    const captured: Captured = { warnings: [], skipped: [] };
    const records = await readAll(jsonl, { path: 'export.json', pointer: '/calls' }, { baseDir: dir, captured });
    expect(records.map((r) => [r.data, r.origin.line, r.origin.key, r.dataText])).toEqual([
      [{ id: 'a' }, 3, '0', '{"id": "a"}'],
      [{ id: 'b' }, 4, '1', '{"id": "b"}'],
    ]);
    expect(captured.skipped).toEqual([{ action: 'skipped', origin: { stream: 'export.json', file: 'export.json', line: 6 }, reason: 'nothing at pointer "/calls"' }]);
    expect(captured.warnings).toEqual(['export.json:6: nothing at pointer "/calls"; skipped']);
  });

  it('skips or fails on a malformed element as onInvalidLine says, and fails on a malformed document naming file:line', async () => {
    const dir = tempDir('json-pointer');
    writeFileSync(join(dir, 'bad-element.json'), '{"calls": [\n {"id": "a"},\n {"id": x},\n {"id": "c"}\n]}');
    writeFileSync(join(dir, 'twice.json'), '{"calls": [],\n "calls": [{"id": "a"}]}');
    const skipped = await readAll(jsonl, { path: 'bad-element.json', pointer: '/calls', onInvalidLine: 'skip' }, { baseDir: dir });
    expect(skipped.map((r) => r.data.id)).toEqual(['a', 'c']);
    const failed = await rejection(readAll(jsonl, { path: 'bad-element.json', pointer: '/calls' }, { baseDir: dir }));
    expect((failed as Error).message).toContain('bad-element.json:3');
    const twice = await rejection(readAll(jsonl, { path: 'twice.json', pointer: '/calls' }, { baseDir: dir }));
    expect(isFerryError(twice, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((twice as Error).message).toBe(
      'invalid JSON at twice.json:2: the key "calls" appears twice in one object on the pointer\'s path; JSON keeps the last, and the first was read already',
    );
  });
});

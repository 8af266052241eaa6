import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import jsonl from '../../../connectors/sources/jsonl/index.js';
import { JsonSplitError, JsonSplitter, type JsonPiece } from '../../../connectors/sources/jsonl/json-splitter.js';
import { isFerryError } from '../../../src/sdk/index.js';
import { readAll, rejection, tempDir, thrownBy } from './helpers.js';

function split(text: string, chunkSize = text.length): JsonPiece[] {
  const splitter = new JsonSplitter();
  const pieces: JsonPiece[] = [];
  for (let i = 0; i < text.length; i += chunkSize) pieces.push(...splitter.push(text.slice(i, i + chunkSize)));
  pieces.push(...splitter.end());
  return pieces;
}

describe('JsonSplitter', () => {
  const doc = '[\n  {"a": "x]}\\"[{", "b": [1, {"c": 2}]},\n  42,\n  "s,]",\n  true , null,\n  [3]\n]\n';

  it('splits a top-level array into elements with start lines and indexes, at any chunk size', () => {
    const expected = [
      { text: '{"a": "x]}\\"[{", "b": [1, {"c": 2}]}', line: 2, index: 0 },
      { text: '42', line: 3, index: 1 },
      { text: '"s,]"', line: 4, index: 2 },
      { text: 'true', line: 5, index: 3 },
      { text: 'null', line: 5, index: 4 },
      { text: '[3]', line: 6, index: 5 },
    ];
    for (const size of [1, 2, 3, 7, 1000]) expect(split(doc, size)).toEqual(expected);
    expect(split(doc).map((piece) => JSON.parse(piece.text))).toEqual([{ a: 'x]}"[{', b: [1, { c: 2 }] }, 42, 's,]', true, null, [3]]);
  });

  it('yields a whole object, and a sequence of top-level values, without indexes', () => {
    expect(split('{"x": {"y": [1]}}')).toEqual([{ text: '{"x": {"y": [1]}}', line: 1 }]);
    expect(split('{"a":1}\n{"a":2}\n\n{"a":3}', 4)).toEqual([
      { text: '{"a":1}', line: 1 },
      { text: '{"a":2}', line: 2 },
      { text: '{"a":3}', line: 4 },
    ]);
    expect(split('  7  ')).toEqual([{ text: '7', line: 1 }]);
    expect(split('[]')).toEqual([]);
  });

  it('reports unfinished documents with the line the value started on', () => {
    expect(() => split('[\n{"a": 1},\n{"b": ')).toThrow(JsonSplitError);
    try {
      split('[\n{"a": 1},\n{"b": ');
    } catch (error) {
      expect((error as JsonSplitError).line).toBe(3);
    }
    expect(() => split('[1, 2')).toThrow(/array is closed/);
    expect(() => split('[1] [2]')).toThrow(/after the top-level array/);
  });

  it.each([
    ['[{"a":1} {"b":2}]', 1, /must be separated by ","/],
    ['[1,,2]', 1, /where an array element belongs/],
    ['[\n1,\n2,\n]', 4, /an array element is missing/],
    ['[,1]', 1, /where an array element belongs/],
    ['[\n"a"\n"b"]', 3, /must be separated by ","/],
  ])('rejects the malformed array %j at line %i, at any chunk size', (doc, line, message) => {
    for (const size of [1, 2, 5, 1000]) {
      const error = thrownBy(() => split(doc, size));
      expect(error).toBeInstanceOf(JsonSplitError);
      expect((error as JsonSplitError).line).toBe(line);
      expect((error as JsonSplitError).message).toMatch(message);
    }
  });
});

describe('a .json file with a malformed array, read by the jsonl source', () => {
  it('fails the read naming the file and line', async () => {
    const dir = tempDir('json');
    writeFileSync(join(dir, 'deals.json'), '[\n  {"id": 1}\n  {"id": 2}\n]\n');
    const error = await rejection(readAll(jsonl, { path: 'deals.json', format: 'json' }, { baseDir: dir }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toBe('invalid JSON at deals.json:3: unexpected "{": array elements must be separated by ","');
  });
});

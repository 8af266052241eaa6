import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { createGrouper, groupOrigin, groupRecords } from '../../../src/mapping/index.js';
import { GroupStore } from '../../../src/mapping/group-store.js';
import type { GroupOptions } from '../../../src/mapping/index.js';
import type { SourceData, SourceRecord } from '../../../src/sdk/types.js';

let spillDir: string;
beforeEach(() => {
  spillDir = mkdtempSync(join(tmpdir(), 'ferry-group-test-'));
});
afterEach(() => {
  rmSync(spillDir, { recursive: true, force: true });
});

function rec(data: SourceData, line: number, file = 'calls.csv'): SourceRecord {
  return { data, origin: { file, line } };
}

async function* from(records: Iterable<SourceRecord>, onPull?: () => void): AsyncIterable<SourceRecord> {
  for (const record of records) {
    onPull?.();
    yield record;
  }
}

async function run(records: SourceRecord[], by: string | string[], options: GroupOptions = {}) {
  const out: { key: unknown; ids: unknown[] }[] = [];
  for await (const group of groupRecords(from(records), by, { spillDir, ...options })) {
    out.push({ key: group.key, ids: group.records.map((r) => r.id) });
  }
  return out;
}

describe('groupRecords', () => {
  it('sorted: emits each group as soon as the key changes', async () => {
    const records = [rec({ call: 'a', id: 1 }, 2), rec({ call: 'a', id: 2 }, 3), rec({ call: 'b', id: 3 }, 4), rec({ call: 'c', id: 4 }, 5)];
    let pulled = 0;
    const seen: [unknown, number][] = [];
    for await (const group of groupRecords(from(records, () => pulled++), 'call', { spillDir, sorted: true })) seen.push([group.key, pulled]);
    // 'a' is complete once the first 'b' record has been read, not at the end of the input.
    expect(seen).toEqual([['a', 3], ['b', 4], ['c', 4]]);
  });

  it('unsorted: holds every group until the input ends', async () => {
    const records = [rec({ call: 'a', id: 1 }, 2), rec({ call: 'b', id: 2 }, 3), rec({ call: 'c', id: 3 }, 4)];
    let pulled = 0;
    const seen: [unknown, number][] = [];
    for await (const group of groupRecords(from(records, () => pulled++), 'call', { spillDir })) seen.push([group.key, pulled]);
    expect(seen).toEqual([['a', 3], ['b', 3], ['c', 3]]);
  });

  it('sorted: a key that comes back stops the read instead of emitting a partial group', async () => {
    const records = ['a', 'b', 'a'].map((call, i) => rec({ call, id: i }, i + 2));
    await expect(run(records, 'call', { sorted: true })).rejects.toThrow(/group key "a" comes back at calls.csv:4/);
    expect(readdirSync(spillDir)).toEqual([]);
  });

  it('gives the first origin with the line range of a file', async () => {
    const groups = [];
    for await (const g of groupRecords(from([rec({ k: 1 }, 2), rec({ k: 1 }, 3), rec({ k: 1 }, 9), rec({ k: 2 }, 10)]), 'k', { spillDir })) groups.push(g);
    expect(groups.map((g) => g.origin)).toEqual([{ file: 'calls.csv', line: 2, lineEnd: 9 }, { file: 'calls.csv', line: 10 }]);
    expect(groupOrigin([{ file: 'a', line: 1 }, { file: 'b', line: 1 }])).toEqual({ file: 'a', line: 1 });
    expect(groupOrigin([{ table: 't', key: '1' }, { table: 't', key: '2' }])).toEqual({ table: 't', key: '1' });
  });

  it('carries each group\'s lowest and highest cursor, across the runs of an interleaved key', async () => {
    const at = (call: string, cursor: number | string | null, line: number): SourceRecord => ({ data: { call }, origin: { file: 'calls.csv', line }, cursor });
    const records = [at('a', 5, 2), at('a', 3, 3), at('b', 7, 4), at('a', 9, 5), at('b', null, 6), at('a', 1, 7), at('c', null, 8)];
    const cursors = async (options: GroupOptions) => {
      const out: [unknown, unknown][] = [];
      for await (const g of groupRecords(from(records), 'call', { spillDir, ...options })) out.push([g.key, g.cursor]);
      return out;
    };
    expect(await cursors({})).toEqual([
      ['a', { lowest: 1, highest: 9 }],
      ['b', { lowest: 7, highest: 7 }],
      ['c', undefined],
    ]);
    const sorted = [at('x', '2024-01-02', 2), at('x', '2024-01-01', 3), at('y', '2024-03-01', 4)];
    const out: [unknown, unknown][] = [];
    for await (const g of groupRecords(from(sorted), 'call', { spillDir, sorted: true })) out.push([g.key, g.cursor]);
    expect(out).toEqual([
      ['x', { lowest: '2024-01-01', highest: '2024-01-02' }],
      ['y', { lowest: '2024-03-01', highest: '2024-03-01' }],
    ]);
  });

  it('gives the line range of a group larger than a call\'s arguments may be (a whole file, `by: _file`)', () => {
    const origins = Array.from({ length: 300_000 }, (_, i) => ({ file: 'big.csv', line: i + 2 }));
    origins[1000] = { file: 'big.csv', line: 900_000 }; // the range ends at the largest line, wherever it is
    expect(groupOrigin(origins)).toEqual({ file: 'big.csv', line: 2, lineEnd: 900_000 });
  });

  it('pages through unsent groups along an index, not by scanning and sorting the whole scratch table per page', () => {
    const store = new GroupStore(spillDir);
    try {
      const db = (store as unknown as { db: Database.Database }).db;
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT id, key, first_seq, state FROM groups WHERE state != 1 AND first_seq > ? ORDER BY first_seq LIMIT ?')
        .all(0, 200) as { detail: string }[];
      const details = plan.map((row) => row.detail).join('; ');
      expect(details).toContain('USING INDEX groups_first_seq');
      expect(details).not.toContain('TEMP B-TREE');
    } finally {
      store.close();
    }
  });

  it('emits each interleaved key once, whole, in first-seen order', async () => {
    const keys = ['a', 'a', 'b', 'a', 'c', 'b', 'd', 'd'];
    const out = await run(keys.map((call, i) => rec({ call, id: i }, i + 2)), 'call');
    expect(out).toEqual([
      { key: 'a', ids: [0, 1, 3] },
      { key: 'b', ids: [2, 5] },
      { key: 'c', ids: [4] },
      { key: 'd', ids: [6, 7] },
    ]);
  });

  it('reads a group back from the scratch file when it outgrows the memory limit', async () => {
    const records = Array.from({ length: 50 }, (_, i) => rec({ call: i < 20 ? 'x' : i < 45 ? 'y' : 'z', id: i }, i + 2));
    const small = await run(records, 'call', { memoryLimitRecords: 3, sorted: true });
    const large = await run(records, 'call', { sorted: true });
    expect(small).toEqual(large);
    expect(small.map((g) => g.ids.length)).toEqual([20, 25, 5]);
  });

  it('groups by compound keys, with a missing field as null', async () => {
    const records = [
      rec({ a: 1, b: 'x', id: 1 }, 1),
      rec({ a: 1, b: 'y', id: 2 }, 2),
      rec({ a: 1, b: 'x', id: 3 }, 3),
      rec({ a: 2, id: 4 }, 4),
    ];
    expect(await run(records, ['a', 'b'])).toEqual([
      { key: [1, 'x'], ids: [1, 3] },
      { key: [1, 'y'], ids: [2] },
      { key: [2, null], ids: [4] },
    ]);
  });

  it('keeps 1 and "1" apart and converts bigint and Date values like the mapper', async () => {
    const records = [rec({ k: 1, id: 1 }, 1), rec({ k: '1', id: 2 }, 2), rec({ k: 5n, id: 3, at: new Date(0) }, 3)];
    const groups = [];
    for await (const g of groupRecords(from(records), 'k', { spillDir })) groups.push(g);
    expect(groups.map((g) => g.key)).toEqual([1, '1', 5]);
    expect(groups[2]?.records).toEqual([{ k: 5, id: 3, at: '1970-01-01T00:00:00.000Z' }]);
  });

  it('deletes its scratch file, also when the consumer stops early', async () => {
    const records = Array.from({ length: 10 }, (_, i) => rec({ k: i % 3, id: i }, i));
    for await (const _ of groupRecords(from(records), 'k', { spillDir })) break;
    expect(readdirSync(spillDir)).toEqual([]);
    await run(records, 'k');
    expect(readdirSync(spillDir)).toEqual([]);
  });

  it('exposes the same behaviour through a hand-fed grouper', async () => {
    const grouper = createGrouper('k', { spillDir });
    const out: unknown[] = [];
    for (const [i, k] of ['a', 'b', 'a'].entries()) {
      await grouper.add(rec({ k, i }, i));
      for await (const g of grouper.drain()) out.push([g.key, g.records.length, g.origins.length]);
    }
    await grouper.end();
    for await (const g of grouper.drain()) out.push([g.key, g.records.length, g.origins.length]);
    grouper.close();
    // Nothing before the end: 'a' is only known complete then.
    expect(out).toEqual([['a', 2, 2], ['b', 1, 1]]);
    await expect(grouper.add(rec({ k: 'c' }, 9))).rejects.toThrow('after end()');
  });

  it('keeps every record of a 200k-row input, contiguous and interleaved', async () => {
    const N = 200_000;
    function* rows(interleaved: boolean): Iterable<SourceRecord> {
      for (let i = 0; i < N; i++) {
        const call = interleaved ? i % 1000 : Math.floor(i / 200);
        yield { data: { call: `call-${call}`, seq: i, text: 'hello this is harper valley national bank' }, origin: { file: 'big.csv', line: i + 2 } };
      }
    }
    for (const interleaved of [false, true]) {
      let groups = 0;
      let total = 0;
      let ordered = true;
      for await (const group of groupRecords(from(rows(interleaved)), 'call', { spillDir, memoryLimitRecords: 5_000, sorted: !interleaved })) {
        groups++;
        total += group.records.length;
        for (let j = 1; j < group.records.length; j++) {
          if ((group.records[j]!.seq as number) <= (group.records[j - 1]!.seq as number)) ordered = false;
        }
      }
      // Interleaved or not, each of the 1000 keys comes out once with all its records.
      expect(ordered).toBe(true);
      expect(groups).toBe(1000);
      expect(total).toBe(N);
    }
    expect(readdirSync(spillDir)).toEqual([]);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { groupWrites, WriteBuffer, type PendingWrite } from '../../../../src/state/sqlite/write-buffer.js';

const at = '2024-03-01T00:00:00.000Z';
const ack = (remoteId: string, sync = 'deals'): PendingWrite => ({ kind: 'acknowledged', write: { sync, remoteId, fingerprint: 'f', recordId: 'r' }, at });
const del = (remoteId: string): PendingWrite => ({ kind: 'deleted', sync: 'deals', remoteId, at });
const fail = (remoteId: string | null): PendingWrite => ({
  kind: 'failure',
  write: { sync: 'deals', runId: null, remoteId, origin: null, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: null },
  at,
});

function shape(writes: PendingWrite[], repeats = false): string[] {
  return groupWrites(writes, { repeats }).map((g) => (g.kind === 'failure' ? 'failure' : `${g.kind}×${g.writes.length}`));
}

describe('groupWrites (one multi-row upsert per group)', () => {
  it('puts consecutive acknowledgements of distinct records in one group', () => {
    expect(shape(Array.from({ length: 500 }, (_, i) => ack(`id-${i}`)))).toEqual(['acknowledged×500']);
  });

  it('keeps the same record of another sync in the same group', () => {
    expect(shape([ack('a', 'deals'), ack('a', 'notes')])).toEqual(['acknowledged×2']);
  });

  it('starts a new group when a record repeats, so the later write lands after the earlier one', () => {
    expect(shape([ack('a'), ack('b'), ack('a'), ack('c')])).toEqual(['acknowledged×2', 'acknowledged×2']);
  });

  it('with repeats allowed (SQLite applies a statement\'s rows in order), keeps a repeated record in the group, in order', () => {
    const writes = [ack('a'), ack('b'), ack('a'), ack('c'), del('d'), del('d')];
    expect(shape(writes, true)).toEqual(['acknowledged×4', 'deleted×2']);
    const [acks] = groupWrites(writes, { repeats: true });
    expect(acks?.kind === 'acknowledged' && acks.writes.map((w) => w.write.remoteId)).toEqual(['a', 'b', 'a', 'c']);
  });

  it('keeps the order across kinds; failures go one by one', () => {
    expect(shape([ack('a'), ack('b'), del('c'), del('d'), fail('a'), fail(null), ack('e')])).toEqual([
      'acknowledged×2',
      'deleted×2',
      'failure',
      'failure',
      'acknowledged×1',
    ]);
  });

  it('returns nothing for nothing', () => {
    expect(groupWrites([], { repeats: false })).toEqual([]);
  });
});

describe('WriteBuffer.touches (a read must see these writes committed first)', () => {
  it('knows the records written before and after it is first asked, per sync, until cleared', () => {
    const buffer = new WriteBuffer();
    expect(buffer.touches('deals', ['a'])).toBe(false);
    buffer.add(ack('a'));
    buffer.add(fail(null));
    buffer.add(del('b'));
    expect(buffer.touches('deals', ['x', 'a'])).toBe(true);
    expect(buffer.touches('deals', ['b'])).toBe(true);
    expect(buffer.touches('notes', ['a'])).toBe(false);
    expect(buffer.touches('deals', ['c'])).toBe(false);
    buffer.add(ack('c'));
    buffer.add(fail('d'));
    expect(buffer.touches('deals', ['c'])).toBe(true);
    expect(buffer.touches('deals', ['d'])).toBe(true);
    buffer.clear();
    expect(buffer.touches('deals', ['a', 'c', 'd'])).toBe(false);
    buffer.add(ack('e'));
    expect(buffer.touches('deals', ['a'])).toBe(false);
    expect(buffer.touches('deals', ['e'])).toBe(true);
  });

  it('sees nothing in writes that name no record (a failure without an id)', () => {
    const buffer = new WriteBuffer();
    buffer.add(fail(null));
    expect(buffer.touches('deals', [''])).toBe(false);
  });
});


import { describe, expect, it } from 'vitest';
import { packWrites, unpackWrites } from '../../../../../src/state/sqlite/threaded/commit-message.js';
import type { PendingWrite } from '../../../../../src/state/sqlite/write-buffer.js';

const at = '2024-03-01T00:00:00.000Z';
const ack = (remoteId: string, extra: { origin?: string; sourceFingerprint?: string } = {}): PendingWrite => ({
  kind: 'acknowledged',
  write: { sync: 'deals', remoteId, fingerprint: `fp-${remoteId}`, recordId: `rec-${remoteId}`, ...extra },
  at,
});
const del = (remoteId: string): PendingWrite => ({ kind: 'deleted', sync: 'deals', remoteId, at });
const fail = (remoteId: string): PendingWrite => ({
  kind: 'failure',
  write: { sync: 'deals', runId: null, remoteId, origin: 'deals.csv:4', kind: 'rejected', reason: 'no', status: 422, errorBody: '{"detail":"no"}', body: null, sourceRecord: null },
  at,
});

/** Through a structured clone, as a message to the commit thread goes. */
const crossed = (writes: readonly PendingWrite[]): readonly PendingWrite[] => unpackWrites(structuredClone(packWrites(writes)));

describe('a commit\'s writes on their way to the commit thread', () => {
  it('come back as they were, in order, whatever their kinds', () => {
    const writes = [
      ack('a', { origin: 'deals.csv:2', sourceFingerprint: 'sf-a' }),
      del('b'),
      fail('c'),
      ack('d'),
      ack('e', { origin: '' }),
      ack('f', { sourceFingerprint: '' }),
      fail('g'),
      del('h'),
    ];
    expect(crossed(writes)).toEqual(writes);
  });

  it('keep an absent optional field absent and an empty one empty', () => {
    const [bare, empty] = crossed([ack('a'), ack('b', { origin: '', sourceFingerprint: '' })]) as Extract<PendingWrite, { kind: 'acknowledged' }>[];
    expect('origin' in bare!.write).toBe(false);
    expect('sourceFingerprint' in bare!.write).toBe(false);
    expect(empty!.write.origin).toBe('');
    expect(empty!.write.sourceFingerprint).toBe('');
  });

  it('go as one text when nothing in them holds the separator', () => {
    const packed = packWrites([ack('a'), del('b'), ack('ünïcødé – ok')]);
    expect(Array.isArray(packed)).toBe(false);
    expect(unpackWrites(packed)).toEqual([ack('a'), del('b'), ack('ünïcødé – ok')]);
  });

  it('go as objects when an id holds the separator, and still come back exact', () => {
    for (const writes of [[ack('a'), ack('x\u0000y')], [del('x\u0000y')], [ack('a', { origin: 'f\u0000.csv:1' })]]) {
      const packed = packWrites(writes);
      expect(Array.isArray(packed)).toBe(true);
      expect(unpackWrites(structuredClone(packed))).toEqual(writes);
    }
  });

  it('go as objects when a field is not text (a caller outside TypeScript), so nothing turns into "null"', () => {
    const odd = { kind: 'acknowledged', write: { sync: 'deals', remoteId: 'a', fingerprint: 'f', recordId: 'r', origin: null }, at } as unknown as PendingWrite;
    const packed = packWrites([ack('b'), odd]);
    expect(Array.isArray(packed)).toBe(true);
    expect(unpackWrites(structuredClone(packed))).toEqual([ack('b'), odd]);
  });

  it('an empty commit stays empty', () => {
    expect(crossed([])).toEqual([]);
  });

  it('refuses a damaged text rather than apply the wrong writes', () => {
    expect(() => unpackWrites({ packed: 'z\u0000deals\u0000', failures: [] })).toThrow(/damaged: field 0 is "z"/);
  });
});

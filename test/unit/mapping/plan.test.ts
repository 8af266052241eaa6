/** The plan half of the per-record pipeline (src/mapping/plan.ts): decisions from facts, nothing done. */
import { describe, expect, it } from 'vitest';
import { decide, diff, planBatch, type LedgerView } from '../../../src/mapping/plan.js';

const pushed = (fingerprint: string): LedgerView => ({ status: 'pushed', fingerprint });

describe('decide', () => {
  it('applies the rules in order: invalid, duplicate, then the ledger diff', () => {
    expect(decide(false, true, 'fp', pushed('fp'))).toBe('invalid');
    expect(decide(true, true, 'fp', pushed('fp'))).toBe('duplicate');
    expect(decide(true, false, 'fp', pushed('fp'))).toBe('unchanged');
    expect(decide(true, false, 'fp2', pushed('fp'))).toBe('update');
    expect(decide(true, false, 'fp', undefined)).toBe('create');
  });
});

describe('diff', () => {
  it('creates what the ledger does not hold as pushed: absent, failed or deleted', () => {
    expect(diff('fp', undefined)).toBe('create');
    expect(diff('fp', { status: 'failed', fingerprint: 'fp' })).toBe('create');
    expect(diff('fp', { status: 'deleted', fingerprint: 'fp' })).toBe('create');
  });

  it('leaves a pushed record with the same body unchanged and updates one with another', () => {
    expect(diff('fp', pushed('fp'))).toBe('unchanged');
    expect(diff('other', pushed('fp'))).toBe('update');
  });
});

describe('planBatch', () => {
  it('decides each unit of a batch against the ledger view, in order', () => {
    const ledger = new Map<string, LedgerView>([
      ['a', pushed('fa')],
      ['b', pushed('fb')],
      ['c', { status: 'failed', fingerprint: 'fc' }],
    ]);
    const units = [
      { remoteId: 'a', print: 'fa' },
      { remoteId: 'b', print: 'changed' },
      { remoteId: 'c', print: 'fc' },
      { remoteId: 'd', print: 'fd' },
    ];
    expect(planBatch(units, ledger)).toEqual(['unchanged', 'update', 'create', 'create']);
    expect(planBatch([], ledger)).toEqual([]);
  });

  it('does not touch the ledger view or the units', () => {
    const ledger = new Map([['a', pushed('fa')]]);
    const units = [{ remoteId: 'a', print: 'fa' }];
    planBatch(units, ledger);
    expect([...ledger]).toEqual([['a', pushed('fa')]]);
    expect(units).toEqual([{ remoteId: 'a', print: 'fa' }]);
  });
});

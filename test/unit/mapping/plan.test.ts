/** The plan half of the per-record pipeline (src/mapping/plan.ts): decisions from facts, nothing done. */
import { describe, expect, it } from 'vitest';
import { STEPS, diff, planUnits, type BatchFacts, type Found, type LedgerView, type Plan } from '../../../src/mapping/plan.js';

const pushed = (fingerprint: string): LedgerView => ({ status: 'pushed', fingerprint });

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

describe('planUnits', () => {
  type Cell = { found: Found; remoteId?: string; print?: string };
  /** A batch's facts from one cell per unit, in read order. */
  const facts = (...cells: Cell[]): BatchFacts => ({
    found: cells.map((c) => c.found),
    remoteIds: cells.map((c) => c.remoteId),
    prints: cells.map((c) => c.print),
  });
  const built = (remoteId: string, print: string): Cell => ({ found: 'built', remoteId, print });
  const atSource = (remoteId: string): Cell => ({ found: 'unchanged at source', remoteId });
  const invalid: Cell = { found: 'not built' };
  const deleted: Cell = { found: 'delete' };
  const none = new Set<string>();
  const reasons = (plan: Plan) => plan.steps.map((s) => s.reason);
  const actions = (plan: Plan) => plan.steps.map((s) => s.action);

  it('decides each of the five, with its reason, and counts them', () => {
    const ledger = new Map<string, LedgerView>([
      ['same', pushed('fs')],
      ['other', pushed('fo')],
      ['failed', { status: 'failed', fingerprint: 'ff' }],
      ['gone', { status: 'deleted', fingerprint: 'fg' }],
      ['taken', pushed('ft')],
    ]);
    const plan = planUnits(
      facts(invalid, built('taken', 'ft'), atSource('src'), built('same', 'fs'), built('other', 'changed'), built('new', 'fn'), built('failed', 'ff'), built('gone', 'fg'), deleted),
      ledger,
      new Set(['taken']),
    );
    expect(reasons(plan)).toEqual([
      'not built',
      'id taken earlier in the read',
      'unchanged at source',
      'same body',
      'other body',
      'not in the ledger',
      'failed before',
      'deleted before',
      'deleted at source',
    ]);
    expect(actions(plan)).toEqual(['invalid', 'duplicate', 'unchanged', 'unchanged', 'update', 'create', 'create', 'create', 'delete']);
    expect(plan.counts).toEqual({ invalid: 1, duplicate: 1, unchanged: 2, update: 1, create: 3, delete: 1 });
    expect(plan.firstCopies.size).toBe(0);
  });

  it('decides each unit alone where no id repeats: the same body unchanged, a new id or a failed one created, an invalid unit invalid', () => {
    const ledger = new Map<string, LedgerView>([['a', pushed('fa')], ['b', { status: 'failed', fingerprint: 'fb' }]]);
    const cells = [built('a', 'fa'), built('a2', 'fa'), built('b', 'fb'), invalid];
    const plan = planUnits(facts(...cells), ledger, none);
    expect(plan.steps.map((step) => step.action)).toEqual(['unchanged', 'create', 'create', 'invalid']);
  });

  it('lets the first unit of the batch with an id win, whatever the later copies hold', () => {
    const ledger = new Map([['a', pushed('fa')]]);
    const plan = planUnits(facts(built('a', 'changed'), built('a', 'fa'), built('b', 'fb'), atSource('b'), built('a', 'x')), ledger, none);
    expect(reasons(plan)).toEqual(['other body', 'id taken in this batch', 'not in the ledger', 'id taken in this batch', 'id taken in this batch']);
    expect([...plan.firstCopies]).toEqual([
      [1, 0],
      [3, 2],
      [4, 0],
    ]);
    expect(plan.counts).toMatchObject({ update: 1, create: 1, duplicate: 3 });
  });

  it('makes a copy of an unchanged unit a duplicate, whether the first was unchanged at source or by body', () => {
    const ledger = new Map([['a', pushed('fa')]]);
    expect(reasons(planUnits(facts(atSource('s'), built('s', 'fs')), ledger, none))).toEqual(['unchanged at source', 'id taken in this batch']);
    expect(reasons(planUnits(facts(built('a', 'fa'), atSource('a')), ledger, none))).toEqual(['same body', 'id taken in this batch']);
  });

  it('lets an invalid unit take no id: a later copy that builds is decided on its own, and an invalid copy of a taken id stays invalid', () => {
    const ledger = new Map([['a', pushed('fa')]]);
    expect(reasons(planUnits(facts({ found: 'not built', remoteId: 'a' }, built('a', 'fa'), built('a', 'fa')), ledger, none))).toEqual([
      'not built',
      'same body',
      'id taken in this batch',
    ]);
    expect(reasons(planUnits(facts(built('a', 'fa'), { found: 'not built', remoteId: 'a' }), ledger, new Set(['a'])))).toEqual([
      'id taken earlier in the read',
      'not built',
    ]);
  });

  it('makes a unit whose id an earlier batch took a duplicate before the ledger is read', () => {
    const plan = planUnits(facts(built('a', 'fa'), atSource('b')), new Map(), new Set(['a', 'b']));
    expect(reasons(plan)).toEqual(['id taken earlier in the read', 'id taken earlier in the read']);
    expect(plan.firstCopies.size).toBe(0);
  });

  it('finds no duplicate without the taken ids (a change source: ids recur across batches)', () => {
    const ledger = new Map([['a', pushed('fa')]]);
    const plan = planUnits(facts(built('a', 'fb'), built('b', 'fb'), deleted), ledger, undefined);
    expect(reasons(plan)).toEqual(['other body', 'not in the ledger', 'deleted at source']);
  });

  it('plans an empty batch, and changes neither its facts, the ledger nor the taken ids', () => {
    expect(planUnits(facts(), new Map(), none)).toEqual({ steps: [], counts: { invalid: 0, duplicate: 0, unchanged: 0, create: 0, update: 0, delete: 0 }, firstCopies: new Map() });
    const batch = facts(built('a', 'fa'), built('a', 'fa'), invalid);
    const copy = structuredClone(batch);
    const ledger = new Map([['a', pushed('fa')]]);
    const taken = new Set(['z']);
    planUnits(batch, ledger, taken);
    expect(batch).toEqual(copy);
    expect([...ledger]).toEqual([['a', pushed('fa')]]);
    expect([...taken]).toEqual(['z']);
  });

  it('hands out the shared steps, one object per reason', () => {
    const plan = planUnits(facts(built('a', 'fa'), built('b', 'fb')), new Map(), none);
    expect(plan.steps[0]).toBe(STEPS['not in the ledger']);
    expect(plan.steps[1]).toBe(plan.steps[0]);
    for (const [reason, step] of Object.entries(STEPS)) expect(step.reason).toBe(reason);
  });
});

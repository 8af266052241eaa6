/**
 * The plan half of the per-record pipeline: what each unit of a batch
 * becomes, decided from what is known of it, without doing it. Pure: no
 * state, no I/O; it reads a view of the ledger and of the ids the read took
 * before, and changes neither. The apply half (push, record, dead-letter,
 * settle) is src/pipeline/apply-plan.ts; src/pipeline/unit-processor.ts
 * gathers the facts (did the unit build, its id and body fingerprint, the
 * ledger's entries) and hands the plan to the apply step.
 *
 * The rules, in order:
 * - **invalid** — mapping or building the request failed: dead-lettered, not
 *   sent. An invalid unit takes no id: a later copy that builds is not its
 *   duplicate;
 * - **duplicate** — an earlier unit of the same read took the remote id (in
 *   this batch or an earlier one): the first wins, this one is counted and
 *   not sent (see src/pipeline/duplicate-ids.ts);
 * - **unchanged** — found unchanged at its source before mapping
 *   (src/pipeline/source-fingerprint.ts), or the ledger holds the id as
 *   pushed with this very body fingerprint: nothing to send;
 * - **update** — the ledger holds the id as pushed with another body;
 * - **create** — the ledger does not hold it as pushed (absent, failed or
 *   deleted: none of those decides anything the absence does not).
 *
 * A change source's delete (`op: 'delete'`) is not decided: it is carried
 * through as a `delete` step, in its place in the batch.
 */

export type Decision = 'invalid' | 'duplicate' | 'unchanged' | 'create' | 'update';

/** What a step does with its unit: one of the five decisions, or a change source's delete. */
export type Action = Decision | 'delete';

/** Why a unit got its decision. */
export type Reason =
  | 'not built'
  | 'id taken in this batch'
  | 'id taken earlier in the read'
  | 'unchanged at source'
  | 'same body'
  | 'other body'
  | 'not in the ledger'
  | 'failed before'
  | 'deleted before'
  | 'deleted at source';

/** One unit's step: what it becomes and why. */
export interface Step {
  readonly action: Action;
  readonly reason: Reason;
}

/**
 * The steps, one shared object per reason: a plan holds references to them,
 * so deciding a batch allocates nothing per unit (a no-op re-run decides
 * hundreds of thousands of units at parse speed).
 */
export const STEPS = {
  'not built': { action: 'invalid', reason: 'not built' },
  'id taken in this batch': { action: 'duplicate', reason: 'id taken in this batch' },
  'id taken earlier in the read': { action: 'duplicate', reason: 'id taken earlier in the read' },
  'unchanged at source': { action: 'unchanged', reason: 'unchanged at source' },
  'same body': { action: 'unchanged', reason: 'same body' },
  'other body': { action: 'update', reason: 'other body' },
  'not in the ledger': { action: 'create', reason: 'not in the ledger' },
  'failed before': { action: 'create', reason: 'failed before' },
  'deleted before': { action: 'create', reason: 'deleted before' },
  'deleted at source': { action: 'delete', reason: 'deleted at source' },
} as const satisfies { readonly [R in Reason]: Step & { readonly reason: R } };

/** The steps of a built, first-seen unit: the ledger's verdicts. */
type DiffStep = (typeof STEPS)['same body' | 'other body' | 'not in the ledger' | 'failed before' | 'deleted before'];

/** What the ledger holds of one remote id, as the plan needs it (the state's FingerprintHit fits). */
export interface LedgerView {
  status: 'pushed' | 'failed' | 'deleted';
  fingerprint: string;
}

/** What was found of a unit before its decision. */
export type Found = 'built' | 'not built' | 'unchanged at source' | 'delete';

/**
 * What is known of a batch's units, one column per fact, by index in read
 * order: columns rather than an object per unit, for the same reason as
 * {@link STEPS}.
 */
export interface BatchFacts {
  readonly found: readonly Found[];
  /** The unit's remote id: its built body's, or (unchanged at source) its source candidate's; unread for the others. */
  readonly remoteIds: readonly (string | undefined)[];
  /** A built unit's body fingerprint; unread for the others. */
  readonly prints: readonly (string | undefined)[];
}

/** The remote ids earlier batches of the read took (read-only here: the apply step adds a batch's). */
export interface TakenIds {
  has(remoteId: string): boolean;
}

export interface Plan {
  /** One step per unit, in read order. */
  readonly steps: readonly Step[];
  /** How many units each action has. */
  readonly counts: Readonly<Record<Action, number>>;
  /** For each duplicate of an earlier unit of this batch (by index): the index of that unit, the one its id went to. */
  readonly firstCopies: ReadonlyMap<number, number>;
}

const NO_FIRST_COPIES: ReadonlyMap<number, number> = new Map();

/**
 * The plan of a batch: one step per unit, from the batch's facts, the
 * ledger's entries for its built units' ids, and the ids earlier batches
 * took. `taken` undefined: ids may recur in the read (a change source's
 * batches, each of which has none twice), so no unit is a duplicate.
 */
export function planUnits(facts: BatchFacts, ledger: ReadonlyMap<string, LedgerView>, taken: TakenIds | undefined): Plan {
  const { found, remoteIds, prints } = facts;
  const steps: Step[] = [];
  const counts: Record<Action, number> = { invalid: 0, duplicate: 0, unchanged: 0, create: 0, update: 0, delete: 0 };
  // The batch's first copy of each id it takes, by index.
  const firstAt = taken ? new Map<string, number>() : undefined;
  let firstCopies: Map<number, number> | undefined;
  for (let i = 0; i < found.length; i++) {
    const kind = found[i]!;
    let step: Step;
    if (kind === 'delete') step = STEPS['deleted at source'];
    else if (kind === 'not built') step = STEPS['not built'];
    else {
      const remoteId = remoteIds[i]!;
      const first = firstAt?.get(remoteId);
      if (first !== undefined) {
        step = STEPS['id taken in this batch'];
        (firstCopies ??= new Map()).set(i, first);
      } else if (taken?.has(remoteId)) {
        step = STEPS['id taken earlier in the read'];
      } else {
        firstAt?.set(remoteId, i);
        step = kind === 'unchanged at source' ? STEPS['unchanged at source'] : diffStep(prints[i], ledger.get(remoteId));
      }
    }
    steps.push(step);
    counts[step.action]++;
  }
  return { steps, counts, firstCopies: firstCopies ?? NO_FIRST_COPIES };
}

/** The ledger diff of a built, first-seen unit, with its reason. */
function diffStep(print: string | undefined, known: LedgerView | undefined): DiffStep {
  if (known === undefined) return STEPS['not in the ledger'];
  if (known.status === 'failed') return STEPS['failed before'];
  if (known.status === 'deleted') return STEPS['deleted before'];
  return known.fingerprint === print ? STEPS['same body'] : STEPS['other body'];
}

/** The ledger diff of a built, first-seen unit: unchanged, update or create. */
export function diff(print: string | undefined, known: LedgerView | undefined): 'unchanged' | 'create' | 'update' {
  return diffStep(print, known).action;
}

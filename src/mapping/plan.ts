/**
 * The plan half of the per-record pipeline: what to do with a unit, decided
 * from what is known of it, without doing it. Pure: no state, no I/O, no
 * counts. The apply half (push, record, settle) is src/pipeline/unit-processor.ts,
 * which gathers the facts (did the unit build, did an earlier unit of the read
 * take its id, what the ledger holds for it) and carries out the decision.
 *
 * The rules, in order ({@link decide}; the pipeline applies the first two as
 * each unit is built, since they need no ledger, and the rest per batch with
 * {@link planBatch}, once the batch's ledger has been read):
 * - **invalid** — mapping or building the request failed: dead-lettered, not sent;
 * - **duplicate** — an earlier unit of the same read took the remote id: the
 *   first wins, this one is counted and not sent;
 * - **unchanged** — the ledger holds the id as pushed with this very body
 *   fingerprint: nothing to send;
 * - **update** — the ledger holds the id as pushed with another body;
 * - **create** — the ledger does not hold it as pushed (absent, failed or
 *   deleted: none of those decides anything the absence does not).
 *
 * (A unit found unchanged at its source, before mapping, is decided earlier
 * by its source fingerprint: src/pipeline/source-fingerprint.ts.)
 */

export type Decision = 'invalid' | 'duplicate' | 'unchanged' | 'create' | 'update';

/** What the ledger holds of one remote id, as the plan needs it (the state's FingerprintHit fits). */
export interface LedgerView {
  status: 'pushed' | 'failed' | 'deleted';
  fingerprint: string;
}

/**
 * The decision for one unit.
 *
 * @param built - whether the unit mapped and built a request
 * @param duplicate - whether an earlier unit of the read took its remote id (asked only of a built unit)
 * @param print - the built body's fingerprint
 * @param known - the ledger's entry for its remote id, if any
 */
export function decide(built: boolean, duplicate: boolean, print: string | undefined, known: LedgerView | undefined): Decision {
  if (!built) return 'invalid';
  if (duplicate) return 'duplicate';
  return diff(print, known);
}

/** The ledger diff of a built, first-seen unit: unchanged, update or create. */
export function diff(print: string | undefined, known: LedgerView | undefined): 'unchanged' | 'create' | 'update' {
  if (known?.status !== 'pushed') return 'create';
  return known.fingerprint === print ? 'unchanged' : 'update';
}

/**
 * The ledger diff of a batch of built, first-seen units against the ledger's
 * view of their ids: one decision per unit, in order.
 */
export function planBatch(units: readonly { remoteId: string; print: string }[], ledger: ReadonlyMap<string, LedgerView>): ('unchanged' | 'create' | 'update')[] {
  const decisions = new Array<'unchanged' | 'create' | 'update'>(units.length);
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    decisions[i] = diff(unit.print, ledger.get(unit.remoteId));
  }
  return decisions;
}

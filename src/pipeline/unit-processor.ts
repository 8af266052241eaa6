/**
 * The per-record pipeline for one batch of units, in three steps:
 *
 * 1. **build** the batch's units (build-units.ts: map → evolve the object
 *    type → build the request → its fingerprint), except those the early
 *    ledger look found unchanged at their source, and a source's deletes;
 * 2. **plan** the batch: one pure decision per unit from those facts, a view
 *    of the ledger (ledger-look.ts, one query per batch) and the ids earlier
 *    batches took (src/mapping/plan.ts: invalid, duplicate, unchanged,
 *    create, update);
 * 3. **apply** the plan (apply-plan.ts): push, record, dead-letter, settle.
 *
 * A batch's outcomes land after {@link UnitProcessor.processBatch} returns
 * (pushes run concurrently); {@link UnitProcessor.drain} waits for them all.
 */
import type { Found } from '../mapping/index.js';
import { planUnits } from '../mapping/index.js';
import type { ObjectTypeEvolver } from '../sink/index.js';
import { PlanApplier, type AppliedBatch, type ApplyDeps } from './apply-plan.js';
import { UnitBuilder, type BuildFailure, type MappedUnit, type ReadyUnit } from './build-units.js';
import type { DuplicateIds } from './duplicate-ids.js';
import { LedgerLook, type BatchLook, type EarlyLook } from './ledger-look.js';
import type { SourceFingerprinter } from './source-fingerprint.js';
import type { Unit } from './units.js';
import type { LoopSlices } from './fast/loop-slices.js';

/** What the apply step needs (ApplyDeps, less the ids taken, which the processor decides), and what building and looking need. */
export interface UnitProcessorDeps extends Omit<ApplyDeps, 'taken'> {
  /** Decides "unchanged" before mapping; undefined: every unit is mapped. */
  sourcePrints: SourceFingerprinter | undefined;
  evolver: ObjectTypeEvolver | undefined;
  /** Ids already taken earlier in this read: a later unit with one is not pushed. */
  duplicates: DuplicateIds;
  /** Gives the event loop its turns while a batch is prepared (shared with the reader). */
  slices: LoopSlices;
  /**
   * The source reads changes (SourceDefinition.changes): an id recurs
   * legitimately across batches (never within one, see ChangeBatches), so
   * no unit is a duplicate, the ledger is asked again after each batch, and
   * `op: 'delete'` units delete.
   */
  changes?: boolean;
}

/** A batch while it is built: the plan's facts and the apply step's details, one column each. */
interface Gathered extends AppliedBatch {
  readonly units: Unit[];
  readonly tickets: number[];
  readonly found: Found[];
  readonly remoteIds: (string | undefined)[];
  readonly prints: (string | undefined)[];
  readonly ready: (ReadyUnit | undefined)[];
  readonly failures: (BuildFailure | undefined)[];
}

export class UnitProcessor {
  private readonly builder: UnitBuilder;
  private readonly look: LedgerLook;
  private readonly applier: PlanApplier;
  /** The ids the read took, as the plan sees them; undefined for a change source, whose ids recur. */
  private readonly taken: DuplicateIds | undefined;

  constructor(private readonly deps: UnitProcessorDeps) {
    const changes = deps.changes === true;
    this.taken = changes ? undefined : deps.duplicates;
    this.builder = new UnitBuilder(deps);
    this.look = new LedgerLook({ store: deps.store, sync: deps.sync.name, sourcePrints: deps.sourcePrints, slices: deps.slices, changes });
    this.applier = new PlanApplier({ ...deps, taken: this.taken });
  }

  /**
   * Processes units in read order: builds them, plans the batch, applies
   * the plan. Returns false when the run started stopping before every unit
   * was handled (the rest stay unfinished, for the next run).
   */
  async processBatch(items: readonly (Unit | MappedUnit)[], look: BatchLook = this.lookAhead(items)): Promise<boolean> {
    const early = await look;
    const batch = await this.build(items, early);
    const ledger = await this.look.entriesFor(batch, early, this.taken);
    return this.applier.apply(batch, planUnits(batch, ledger, this.taken), ledger);
  }

  /** Starts the ledger's early look at a batch, to hand to {@link processBatch} later (see LedgerLook.lookAhead). */
  lookAhead(items: readonly (Unit | MappedUnit)[]): BatchLook {
    return this.look.lookAhead(items);
  }

  /** Waits until every push in flight has been answered and its outcome recorded. */
  drain(): Promise<void> {
    return this.applier.drain();
  }

  /** Step 1: every unit of the batch registered for the checkpoint, in read order, and built unless the early look settled it. */
  private async build(items: readonly (Unit | MappedUnit)[], early: EarlyLook): Promise<Gathered> {
    const batch: Gathered = { units: [], tickets: [], found: [], remoteIds: [], prints: [], ready: [], failures: [] };
    const { counts, checkpointer, slices } = this.deps;
    // An index loop: the entries() iterator and its [i, item] pairs would live across the awaits below, allocated.
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      // Let answers in, and the requests that follow them out, between slices of the batch.
      const turn = slices.due();
      if (turn) await turn;
      const unit = 'unit' in item ? item.unit : item;
      counts.read++;
      const ticket = checkpointer.begin(unit.position, unit.lowestCursor);
      const candidate = early.candidates[i];
      if (unit.op === 'delete') {
        add(batch, unit, ticket, 'delete', undefined, undefined, undefined);
      } else if (candidate && early.unchanged[i] === 1) {
        add(batch, unit, ticket, 'unchanged at source', candidate.remoteId, undefined, undefined);
      } else {
        const building = this.builder.build(item);
        const built = building instanceof Promise ? await building : building;
        if (built.ok) add(batch, unit, ticket, 'built', built.remoteId, this.builder.ready(unit, ticket, built, candidate), undefined);
        else add(batch, unit, ticket, 'not built', undefined, undefined, built);
      }
    }
    return batch;
  }
}

/** One unit's facts, a cell in each column. */
function add(batch: Gathered, unit: Unit, ticket: number, found: Found, remoteId: string | undefined, ready: ReadyUnit | undefined, failure: BuildFailure | undefined): void {
  batch.units.push(unit);
  batch.tickets.push(ticket);
  batch.found.push(found);
  batch.remoteIds.push(remoteId);
  batch.prints.push(ready?.print);
  batch.ready.push(ready);
  batch.failures.push(failure);
}

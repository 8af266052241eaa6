/**
 * The ledger as a batch's plan sees it (src/mapping/plan.ts): two looks per
 * batch at most, each one query for the whole batch, never one per record.
 *
 * - The early look, before mapping ({@link LedgerLook.lookAhead}): each
 *   unit's source candidate (src/pipeline/source-fingerprint.ts) and which
 *   of them the ledger holds unchanged, so those are never mapped; the
 *   entries of the others come back with it.
 * - The look for the built units ({@link LedgerLook.entriesFor}): the
 *   entries of the ids the early look did not ask about.
 */
import type { FingerprintHit, LedgerStore } from '../state/index.js';
import type { BatchFacts, TakenIds } from '../mapping/index.js';
import type { LoopSlices } from './fast/loop-slices.js';
import type { MappedUnit } from './build-units.js';
import type { SourceCandidate, SourceFingerprinter } from './source-fingerprint.js';
import type { Unit } from './units.js';

/** What a batch's early look found: per unit its candidate and whether it is unchanged (by index), and the ledger's entries for the rest. */
export interface EarlyLook {
  candidates: (SourceCandidate | undefined)[];
  /** 1 where the ledger holds the unit's candidate as pushed with the same source fingerprint. */
  unchanged: Uint8Array;
  ledger: Map<string, FingerprintHit>;
  /** The remote ids whose entries `ledger` holds (found or not): those of the candidates not unchanged. */
  asked: Set<string>;
}

/** A batch's early look, started by {@link LedgerLook.lookAhead}. */
export type BatchLook = Promise<EarlyLook>;

export interface LedgerLookDeps {
  store: LedgerStore;
  sync: string;
  /** Decides "unchanged" before mapping; undefined: every unit is mapped. */
  sourcePrints: SourceFingerprinter | undefined;
  slices: LoopSlices;
  /** A change source: what this run acknowledged is looked up again (see UnitProcessorDeps.changes). */
  changes: boolean;
}

export class LedgerLook {
  /** See {@link nothingLive}; undefined until the first batch asks. */
  private noneLive: boolean | undefined;

  constructor(private readonly deps: LedgerLookDeps) {}

  /**
   * Starts the early look at a batch, to hand to UnitProcessor.processBatch
   * later: a run asks for the next batch's look before it processes the
   * current batch, so a store that answers on another thread or server
   * answers meanwhile. Asking early decides nothing differently: the ledger
   * entries of a batch's ids change only through earlier units with the same
   * ids, and such a unit's look is never used (it is a duplicate).
   */
  lookAhead(items: readonly (Unit | MappedUnit)[]): BatchLook {
    const look = this.lookAtSources(items);
    // Awaited by processBatch, or by the run before it ends; until then its failure is not unhandled.
    look.catch(() => undefined);
    return look;
  }

  /**
   * The ledger's entries for a batch's built units: what the early look
   * found, plus one query for the ids it did not ask about. Ids an earlier
   * batch of the read took are not asked: those units are duplicates
   * whatever the ledger holds.
   */
  async entriesFor(facts: BatchFacts, early: EarlyLook, taken: TakenIds | undefined): Promise<ReadonlyMap<string, FingerprintHit>> {
    const { found, remoteIds } = facts;
    let wanted: Set<string> | undefined;
    for (let i = 0; i < found.length; i++) {
      if (found[i] !== 'built') continue;
      const remoteId = remoteIds[i]!;
      if (taken?.has(remoteId) !== true) (wanted ??= new Set()).add(remoteId);
    }
    if (wanted === undefined || (await this.nothingLive())) return early.ledger;
    const missing: string[] = [];
    for (const remoteId of wanted) if (!early.asked.has(remoteId)) missing.push(remoteId);
    if (missing.length === 0) return early.ledger;
    const entries = await this.deps.store.fingerprints(this.deps.sync, missing);
    for (const [id, hit] of early.ledger) entries.set(id, hit);
    return entries;
  }

  /**
   * Source fingerprints, and in one query per batch which of them the ledger
   * holds unchanged; full entries come back only for the others.
   */
  private async lookAtSources(items: readonly (Unit | MappedUnit)[]): Promise<EarlyLook> {
    const fingerprinter = this.deps.sourcePrints;
    const unchanged = new Uint8Array(items.length);
    if (!fingerprinter) return { candidates: [], unchanged, ledger: new Map(), asked: new Set() };
    const candidates = new Array<SourceCandidate | undefined>(items.length);
    const remoteIds: string[] = [];
    const sourcePrints: string[] = [];
    const at: number[] = [];
    for (let i = 0; i < items.length; i++) {
      // A candidate takes about a microsecond: the clock is read every 32 of them, not for each.
      if ((i & 31) === 31) {
        const turn = this.deps.slices.due();
        if (turn) await turn;
      }
      const item = items[i]!;
      const found = fingerprinter.candidate('unit' in item ? item.unit : item);
      const candidate = found instanceof Promise ? await found : found;
      candidates[i] = candidate;
      if (!candidate) continue;
      remoteIds.push(candidate.remoteId);
      sourcePrints.push(candidate.sourcePrint);
      at.push(i);
    }
    if (remoteIds.length === 0 || (await this.nothingLive())) return { candidates, unchanged, ledger: new Map(), asked: new Set() };
    const look = await this.deps.store.unchangedAtSource(this.deps.sync, remoteIds, sourcePrints);
    // An unchanged id's entry was not fetched: a later unit of the batch that needs it asks again (see entriesFor).
    const asked = new Set<string>();
    for (let k = 0; k < at.length; k++) {
      if (look.unchanged[k] === 1) unchanged[at[k]!] = 1;
      else asked.add(remoteIds[k]!);
    }
    return { candidates, unchanged, ledger: look.others, asked };
  }

  /**
   * True when the ledger held no pushed record of this sync as the run's
   * first batch was looked at (a first run, a backfill after a reset): no
   * unit can then be unchanged or an update, and the per-batch queries are
   * skipped (on a first run they would find nothing, at a cost per record).
   * It stays exact for the whole run because what the run itself
   * acknowledges is never looked up again: a later unit with a remote id an
   * earlier one took is a duplicate whatever the ledger holds, and the
   * slices of a partitioned sync never share a remote id. Failed and
   * deleted entries decide nothing the absence of an entry does not.
   */
  private async nothingLive(): Promise<boolean> {
    // A change source looks up again what this run acknowledged earlier.
    if (this.deps.changes) return false;
    this.noneLive ??= !(await this.deps.store.hasLive(this.deps.sync));
    return this.noneLive;
  }
}

/**
 * The apply half of the per-record pipeline: carries out a batch's plan
 * (src/mapping/plan.ts), unit by unit in read order. Creates and updates go
 * to the pusher (counted only, on a dry run) and their outcome is recorded —
 * acknowledged in the ledger, or refused and dead-lettered; an invalid unit is
 * dead-lettered; a duplicate is counted and logged once (DuplicateIds); an
 * unchanged unit sends nothing. Each unit is then settled: the checkpoint may
 * pass it. Pushes run concurrently; {@link PlanApplier.drain} waits for every
 * outcome to be recorded.
 *
 * Per unit the common steps make no promise of their own: a push while the
 * pusher has room, an unchanged unit while no checkpoint is due. This runs
 * once per record, and every promise is an allocation and a microtask turn
 * more per record.
 */
import type { Logger } from 'pino';
import type { LoadedSync } from '../config/index.js';
import type { TargetType } from '../config/schema.js';
import type { CompiledMapping, Plan, Step } from '../mapping/index.js';
import { explainMissingFields } from '../mapping/missing-fields.js';
import { isFerryError } from '../sdk/errors.js';
import { isRecord } from '../sdk/guards.js';
import type { Pusher, PushOutcome } from '../sink/index.js';
import type { DeadLetterStore, FailureWrite, FingerprintHit, LedgerStore, RunCounts } from '../state/index.js';
import type { BatchFacts } from '../mapping/index.js';
import type { BuildFailure, ReadyUnit } from './build-units.js';
import type { Checkpointer } from './checkpointer.js';
import { boundedFailure } from './dead-letter-excerpt.js';
import type { DuplicateIds } from './duplicate-ids.js';
import type { RunStop } from './run-stop.js';
import type { SeenIds } from './seen-ids.js';
import { applySourceDelete } from './source-deletes.js';
import type { Unit } from './units.js';

/** What a dry run reports per unit, for `ferry preview`. */
export interface UnitSample {
  origin: string;
  input: unknown;
  body?: Record<string, unknown>;
  error?: string;
  action: 'create' | 'update' | 'unchanged' | 'invalid';
}

/** A batch as the apply step gets it: the plan's facts, and per unit what carrying out its step takes. */
export interface AppliedBatch extends BatchFacts {
  readonly units: readonly Unit[];
  /** Per unit, its checkpoint ticket (Checkpointer.begin). */
  readonly tickets: readonly number[];
  /** Per built unit, its request. */
  readonly ready: readonly (ReadyUnit | undefined)[];
  /** Per unit that did not build, why. */
  readonly failures: readonly (BuildFailure | undefined)[];
}

export interface ApplyDeps {
  store: LedgerStore & DeadLetterStore;
  sync: LoadedSync;
  mapping: CompiledMapping;
  runId: string | null;
  dryRun: boolean;
  counts: RunCounts;
  log: Logger;
  checkpointer: Checkpointer;
  /** Undefined on a dry run. */
  pusher: Pusher | undefined;
  stop: RunStop;
  sourceId: string;
  /** Collects the remote ids read, for `deletes: mirror` (unless a separate key scan does). */
  seen: SeenIds | undefined;
  /** The ids the read took; undefined when ids may recur (a change source), and none is a duplicate. */
  taken: DuplicateIds | undefined;
  onSample: ((sample: UnitSample) => void) | undefined;
  onProgress: () => void;
}

export class PlanApplier {
  private readonly kind: TargetType;
  private readonly recording = new Set<Promise<void>>();

  constructor(private readonly deps: ApplyDeps) {
    this.kind = deps.sync.target.type;
  }

  /**
   * Carries out the plan of `batch`. Returns false when the run started
   * stopping before every unit was settled (the rest stay unfinished, for the
   * next run).
   *
   * A stopping run starts no push: from the stop on, the ledger's verdicts
   * (create, update, unchanged by body) are left for the next run to make
   * again, as they may no longer hold by then; the units decided without the
   * ledger (invalid, duplicate, unchanged at source, a source's delete) are
   * still settled, their outcome being known already.
   */
  async apply(batch: AppliedBatch, plan: Plan, ledger: ReadonlyMap<string, FingerprintHit>): Promise<boolean> {
    this.take(batch, plan);
    const { steps } = plan;
    let left = false;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (byLedger(step) && this.deps.stop.stopping) {
        left = true;
        continue;
      }
      const applied = this.applyStep(batch, i, step, ledger);
      if (applied) await applied;
    }
    return !left && !this.deps.stop.failed;
  }

  /** Waits until every push in flight has been answered and its outcome recorded. */
  async drain(): Promise<void> {
    await this.deps.pusher?.onIdle();
    await Promise.all(this.recording);
  }

  /**
   * The ids the batch's first-seen units take, before anything is carried
   * out: for the duplicates of later batches, and for `deletes: mirror`.
   */
  private take(batch: AppliedBatch, plan: Plan): void {
    const { taken, seen } = this.deps;
    if (!taken && !seen) return;
    const { steps } = plan;
    for (let i = 0; i < steps.length; i++) {
      const action = steps[i]!.action;
      if (action !== 'unchanged' && action !== 'create' && action !== 'update') continue;
      const remoteId = batch.remoteIds[i]!;
      taken?.take(remoteId);
      seen?.add(remoteId);
    }
  }

  private applyStep(batch: AppliedBatch, i: number, step: Step, ledger: ReadonlyMap<string, FingerprintHit>): Promise<void> | undefined {
    const unit = batch.units[i]!;
    const ticket = batch.tickets[i]!;
    switch (step.action) {
      case 'delete':
        this.deleteUnit(unit, ticket);
        return undefined;
      case 'invalid':
        return this.deadLetterInvalid(unit, ticket, batch.failures[i]!);
      case 'duplicate':
        return this.skipDuplicate(unit, ticket, batch.remoteIds[i]!);
      case 'unchanged':
        return step.reason === 'unchanged at source' ? this.unchangedAtSource(unit, ticket) : this.unchangedBody(batch.ready[i]!, ledger.get(batch.remoteIds[i]!)!);
      case 'create':
      case 'update':
        return this.createOrUpdate(batch.ready[i]!, step.action);
    }
  }

  /** The fast path, once per unchanged record: no promise unless a replayed entry goes or a checkpoint is due. */
  private unchangedAtSource(unit: Unit, ticket: number): Promise<void> | undefined {
    this.deps.counts.unchanged++;
    const replayed = this.resolveReplayed(unit);
    // Nothing written for an unchanged unit: no reason to checkpoint sooner (a replayed entry's removal is a write).
    return replayed !== undefined ? replayed.then(() => this.settled(ticket)) : this.settled(ticket, true);
  }

  /** Mapped, built and hashed to the body the ledger holds: nothing to send. */
  private async unchangedBody(ready: ReadyUnit, known: FingerprintHit): Promise<void> {
    this.deps.counts.unchanged++;
    await this.resolveReplayed(ready.unit);
    await this.vouchForSource(ready, known);
    this.sample(ready.unit, 'unchanged', ready.body);
    return this.settled(ready.ticket);
  }

  /** An unchanged body whose source fingerprint is new (a changed mapping, an older ledger): store it, so the next run skips mapping. */
  private async vouchForSource(ready: ReadyUnit, known: FingerprintHit): Promise<void> {
    if (ready.sourcePrint === undefined || ready.sourcePrint === known.sourceFingerprint || known.recordId === null) return;
    const { unit, remoteId, print, sourcePrint } = ready;
    await this.deps.store.recordAcknowledged({ sync: this.deps.sync.name, remoteId, fingerprint: print, recordId: known.recordId, origin: unit.origin, sourceFingerprint: sourcePrint });
  }

  /** Counted on a dry run, pushed otherwise; no promise of its own while the pusher has room (once per record). */
  private createOrUpdate(ready: ReadyUnit, action: 'create' | 'update'): Promise<void> | undefined {
    const { pusher } = this.deps;
    if (!pusher) {
      this.deps.counts[action === 'update' ? 'updated' : 'created']++;
      this.sample(ready.unit, action, ready.body);
      return this.settled(ready.ticket);
    }
    const room = pusher.waitForCapacity();
    if (room) return room.then(() => this.pushUnlessStopping(ready));
    this.pushUnlessStopping(ready);
    return undefined;
  }

  private pushUnlessStopping(ready: ReadyUnit): void {
    if (this.deps.stop.failed) return; // the run is stopping: this unit stays unfinished, for the next run
    this.push(ready);
  }

  private push(ready: ReadyUnit): void {
    const { pusher, stop } = this.deps;
    // Few promises per record: the outcome is recorded without an async function, and the
    // unit leaves `recording` in the chain's last step rather than in a finally of its own.
    const recorded: Promise<void> = pusher!
      .push({ kind: this.kind, remoteId: ready.remoteId, body: ready.body, json: ready.json })
      .then((outcome) => this.recordOutcome(ready, outcome))
      .then(
        () => {
          this.recording.delete(recorded);
        },
        (error: unknown) => {
          this.recording.delete(recorded);
          // After a fatal error the pusher rejects what is still queued with
          // FERRY_ABORTED: those units stay unfinished for the next run.
          if (stop.pushSignal.aborted && isFerryError(error, 'FERRY_ABORTED')) return;
          stop.fail(error);
        },
      );
    this.recording.add(recorded);
  }

  /** Acknowledged (ledger) or rejected (dead-letter), then settled for the checkpoint. */
  private recordOutcome(ready: ReadyUnit, outcome: PushOutcome): Promise<void> | undefined {
    const { unit, ticket, remoteId, body, print } = ready;
    if (!outcome.ok) {
      this.deps.counts.failed++;
      const { reason, status, errorBody } = outcome;
      return this.deps.store
        .recordFailure(this.failure(unit, { remoteId, kind: 'rejected', reason, status, errorBody, body, fingerprint: print }))
        .then(() => this.settled(ticket));
    }
    const replayed = this.resolveReplayed(unit);
    if (replayed !== undefined) return replayed.then(() => this.acknowledge(ready, outcome));
    return this.acknowledge(ready, outcome);
  }

  private acknowledge(ready: ReadyUnit, outcome: Extract<PushOutcome, { ok: true }>): Promise<void> {
    const { unit, ticket, remoteId, print, sourcePrint } = ready;
    this.deps.counts.pushed++;
    this.deps.counts[outcome.status === 'created' ? 'created' : 'updated']++;
    return this.deps.store
      .recordAcknowledged({
        sync: this.deps.sync.name,
        remoteId,
        fingerprint: print,
        recordId: outcome.recordId,
        origin: unit.origin,
        ...(sourcePrint !== undefined ? { sourceFingerprint: sourcePrint } : {}),
      })
      .then(() => this.settled(ticket));
  }

  /** A later unit of the read with an id an earlier one took: counted, logged by {@link DuplicateIds}, not pushed. */
  private async skipDuplicate(unit: Unit, ticket: number, remoteId: string): Promise<void> {
    this.deps.taken?.report(remoteId, unit.origin);
    this.deps.counts.duplicates = (this.deps.counts.duplicates ?? 0) + 1;
    await this.resolveReplayed(unit);
    await this.settled(ticket);
  }

  private async deadLetterInvalid(unit: Unit, ticket: number, built: BuildFailure): Promise<void> {
    const { reason, field, body } = built;
    this.deps.counts.failed++;
    if (!this.deps.dryRun) {
      const remoteId = remoteIdOf(body);
      const named = explainMissingFields(reason, this.deps.sync.target.map ?? {}, unit.input);
      const described = field && !named.includes(field.replace(/\.value$/, '')) ? `${field}: ${named}` : named;
      await this.deps.store.recordFailure(this.failure(unit, { remoteId, kind: 'invalid', reason: described, status: null, errorBody: null, body: body ?? null }));
    }
    this.deps.onSample?.({ origin: unit.origin, input: unit.input, error: reason, action: 'invalid' });
    this.deps.log.debug({ origin: unit.origin, reason }, 'record invalid');
    await this.settled(ticket);
  }

  /** A change source's delete, in flight beside the pushes (src/pipeline/source-deletes.ts). */
  private deleteUnit(unit: Unit, ticket: number): void {
    const { deps } = this;
    const deleting: Promise<void> = (deps.pusher?.waitForCapacity() ?? Promise.resolve())
      .then(() =>
        applySourceDelete(
          { store: deps.store, sync: deps.sync.name, kind: this.kind, mapping: deps.mapping, sourceId: deps.sourceId, runId: deps.runId, counts: deps.counts, log: deps.log, pusher: deps.pusher },
          unit,
        ),
      )
      .then(() => this.settled(ticket))
      .then(
        () => {
          this.recording.delete(deleting);
        },
        (error: unknown) => {
          this.recording.delete(deleting);
          if (deps.stop.pushSignal.aborted && isFerryError(error, 'FERRY_ABORTED')) return;
          deps.stop.fail(error);
        },
      );
    this.recording.add(deleting);
  }

  private failure(unit: Unit, f: Pick<FailureWrite, 'remoteId' | 'kind' | 'reason' | 'status' | 'errorBody' | 'body'> & { fingerprint?: string }): FailureWrite {
    // A replayed entry failing again is replaced by this one, its attempts carried over.
    const replaces = unit.failureId !== undefined ? { replaces: unit.failureId } : {};
    return boundedFailure({ sync: this.deps.sync.name, runId: this.deps.runId, origin: unit.origin, sourceRecord: unit.input, ...replaces, ...f });
  }

  /**
   * A replayed dead-letter entry (`failures retry`) goes once its unit landed
   * or is unchanged; a new failure replaces it instead (see {@link failure}).
   */
  private resolveReplayed(unit: Unit): Promise<void> | undefined {
    return !this.deps.dryRun && unit.failureId !== undefined ? this.deps.store.removeFailure(unit.failureId) : undefined;
  }

  /** The unit is done (landed, unchanged or dead-lettered): the checkpoint may move past it. */
  private settled(ticket: number, unchanged = false): Promise<void> | undefined {
    this.deps.onProgress();
    return this.deps.checkpointer.finished(ticket, unchanged);
  }

  private sample(unit: Unit, action: UnitSample['action'], body: Record<string, unknown>): void {
    this.deps.onSample?.({ origin: unit.origin, input: unit.input, body, action });
  }
}

/** Whether a step carries out the ledger's verdict on a built unit (create, update, or unchanged by body). */
function byLedger(step: Step): boolean {
  return step.reason !== 'unchanged at source' && (step.action === 'unchanged' || step.action === 'create' || step.action === 'update');
}

/** The remote id of a (partly) mapped body, as the request builder would send it. */
function remoteIdOf(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const id = body.id;
  if (typeof id === 'string' && id.trim() !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return null;
}

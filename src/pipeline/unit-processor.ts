/**
 * What happens to one unit of a run, in read order: map → evolve the object
 * type → build the request → ask the ledger → push, and record the outcome
 * (acknowledged, unchanged or dead-lettered) before the unit counts as
 * finished for the checkpoint. Pushes run concurrently; {@link drain} waits
 * for every outcome to be recorded.
 */
import type { Logger } from 'pino';
import type { LoadedSync } from '../config/index.js';
import type { TargetType } from '../config/schema.js';
import type { CompiledMapping } from '../mapping/index.js';
import { buildRequest, fingerprint } from '../mapping/index.js';
import { isFerryError } from '../sdk/errors.js';
import { isRecord } from '../sdk/guards.js';
import type { ObjectTypeEvolver, Pusher } from '../sink/index.js';
import type { FailureWrite, FingerprintHit, RunCounts, StateStore } from '../state/index.js';
import type { Checkpointer } from './checkpointer.js';
import type { RunStop } from './run-stop.js';
import type { SeenSet } from './seen-set.js';
import type { Unit } from './units.js';

/** A unit with its mapping's result: the mapped object, or why mapping failed. */
export interface MappedUnit {
  unit: Unit;
  mapped?: Record<string, unknown>;
  error?: string;
}

/** What a dry run reports per unit, for `ferry preview`. */
export interface UnitSample {
  origin: string;
  input: unknown;
  body?: Record<string, unknown>;
  error?: string;
  action: 'create' | 'update' | 'unchanged' | 'invalid';
}

export interface UnitProcessorDeps {
  store: StateStore;
  sync: LoadedSync;
  runId: string | null;
  dryRun: boolean;
  counts: RunCounts;
  log: Logger;
  checkpointer: Checkpointer;
  /** Undefined on a dry run. */
  pusher: Pusher | undefined;
  stop: RunStop;
  sourceId: string;
  evolver: ObjectTypeEvolver | undefined;
  /** Collects the remote ids read, for `deletes: mirror` (unless a separate key scan does). */
  seen: SeenSet | undefined;
  onSample: ((sample: UnitSample) => void) | undefined;
  onProgress: () => void;
}

/** A unit that mapped and built, waiting for the ledger's verdict. */
interface ReadyUnit {
  unit: Unit;
  ticket: number;
  remoteId: string;
  body: Record<string, unknown>;
  print: string;
}

type Built = { ok: true; remoteId: string; body: Record<string, unknown> } | { ok: false; reason: string; field: string | null; body?: unknown };

/** Evaluates the mapping; a throwing mapping is the unit's failure, not the run's. */
export async function mapUnit(mapping: CompiledMapping, unit: Unit): Promise<MappedUnit> {
  try {
    return { unit, mapped: await mapping.evaluate(unit.input) };
  } catch (error) {
    return { unit, error: error instanceof Error ? error.message : String(error) };
  }
}

export class UnitProcessor {
  private readonly kind: TargetType;
  private readonly recording = new Set<Promise<void>>();

  constructor(private readonly deps: UnitProcessorDeps) {
    this.kind = deps.sync.target.type;
  }

  /**
   * Processes units in read order. The ledger is asked once per batch (one
   * query instead of one per record); a remote id that occurs twice in a
   * batch is judged against the ledger as it was before the batch. Returns
   * false when the run started stopping before every unit was handled (the
   * rest stay unfinished, for the next run).
   */
  async processBatch(entries: readonly MappedUnit[]): Promise<boolean> {
    const ready: ReadyUnit[] = [];
    for (const entry of entries) {
      this.deps.counts.read++;
      const ticket = this.deps.checkpointer.begin(entry.unit.position);
      const built = await this.build(entry);
      if (!built.ok) {
        await this.deadLetterInvalid(entry.unit, ticket, built);
        continue;
      }
      this.deps.seen?.add(built.remoteId);
      ready.push({ unit: entry.unit, ticket, remoteId: built.remoteId, body: built.body, print: fingerprint(built.body) });
    }
    if (ready.length === 0) return true;
    const ledger = await this.deps.store.fingerprints(this.deps.sync.name, ready.map((r) => r.remoteId));
    for (const unit of ready) {
      if (this.deps.stop.stopping) return false;
      await this.decide(unit, ledger.get(unit.remoteId));
    }
    return !this.deps.stop.failed;
  }

  /** Unchanged (nothing to send), or create/update: counted on a dry run, pushed otherwise. */
  private async decide(ready: ReadyUnit, known: FingerprintHit | undefined): Promise<void> {
    const { counts } = this.deps;
    const { unit, ticket, body } = ready;
    if (known?.status === 'pushed' && known.fingerprint === ready.print) {
      counts.unchanged++;
      await this.resolveReplayed(unit);
      this.sample(unit, 'unchanged', body);
      return this.settled(ticket);
    }
    const action = known?.status === 'pushed' ? 'update' : 'create';
    if (!this.deps.pusher) {
      counts[action === 'update' ? 'updated' : 'created']++;
      this.sample(unit, action, body);
      return this.settled(ticket);
    }
    await this.deps.pusher.waitForCapacity();
    if (this.deps.stop.failed) return; // the run is stopping: this unit stays unfinished, for the next run
    this.push(ready);
  }

  /** Waits until every push in flight has been answered and its outcome recorded. */
  async drain(): Promise<void> {
    await this.deps.pusher?.onIdle();
    await Promise.all(this.recording);
  }

  private async build(entry: MappedUnit): Promise<Built> {
    if (!entry.mapped) return { ok: false, reason: entry.error ?? 'mapping failed', field: null };
    let mapped = entry.mapped;
    const { evolver, sync } = this.deps;
    if (evolver && isRecord(mapped.fields)) {
      const resolved = await evolver.resolve(mapped.fields);
      if (resolved.rejected.length > 0) {
        const reason = resolved.reason ?? `fields not accepted by object type "${sync.target.objectType?.name}": ${resolved.rejected.join(', ')}`;
        return { ok: false, reason, field: 'fields' };
      }
      mapped = { ...mapped, fields: resolved.fields };
    }
    const built = buildRequest(this.kind, mapped, {
      sourceId: this.deps.sourceId,
      ...(evolver ? { objectTypeId: evolver.objectTypeId, fieldTypes: evolver.fieldTypes, fieldLabels: evolver.fieldLabels } : {}),
    });
    return built.ok ? built : { ok: false, reason: built.reason, field: built.field, body: built.partialBody };
  }

  private push({ unit, ticket, remoteId, body, print }: ReadyUnit): void {
    const { pusher, stop } = this.deps;
    const recorded = pusher!
      .push({ kind: this.kind, remoteId, body })
      .then(async (outcome) => {
        await this.resolveReplayed(unit);
        if (outcome.ok) {
          this.deps.counts.pushed++;
          this.deps.counts[outcome.status === 'created' ? 'created' : 'updated']++;
          await this.deps.store.recordAcknowledged({ sync: this.deps.sync.name, remoteId, fingerprint: print, recordId: outcome.recordId, origin: unit.origin });
        } else {
          this.deps.counts.failed++;
          const { reason, status, errorBody } = outcome;
          await this.deps.store.recordFailure(this.failure(unit, { remoteId, kind: 'rejected', reason, status, errorBody, body, fingerprint: print }));
        }
        await this.settled(ticket);
      })
      .catch((error: unknown) => {
        // After a fatal error the pusher rejects what is still queued with
        // FERRY_ABORTED: those units stay unfinished for the next run.
        if (stop.pushSignal.aborted && isFerryError(error, 'FERRY_ABORTED')) return;
        stop.fail(error);
      });
    this.recording.add(recorded);
    void recorded.finally(() => this.recording.delete(recorded));
  }

  private async deadLetterInvalid(unit: Unit, ticket: number, built: Extract<Built, { ok: false }>): Promise<void> {
    const { reason, field, body } = built;
    this.deps.counts.failed++;
    await this.resolveReplayed(unit);
    if (!this.deps.dryRun) {
      const remoteId = isRecord(body) && 'id' in body ? String(body.id) : null;
      const described = field && !reason.includes(field) ? `${field}: ${reason}` : reason;
      await this.deps.store.recordFailure(this.failure(unit, { remoteId, kind: 'invalid', reason: described, status: null, errorBody: null, body: body ?? null }));
    }
    this.deps.onSample?.({ origin: unit.origin, input: unit.input, error: reason, action: 'invalid' });
    this.deps.log.debug({ origin: unit.origin, reason }, 'record invalid');
    await this.settled(ticket);
  }

  private failure(unit: Unit, f: Pick<FailureWrite, 'remoteId' | 'kind' | 'reason' | 'status' | 'errorBody' | 'body'> & { fingerprint?: string }): FailureWrite {
    return { sync: this.deps.sync.name, runId: this.deps.runId, origin: unit.origin, sourceRecord: unit.input, ...f };
  }

  /**
   * A replayed dead-letter entry (`failures retry`) goes once its unit has an
   * outcome; removed before a new failure is recorded, which opens a new entry.
   */
  private async resolveReplayed(unit: Unit): Promise<void> {
    if (!this.deps.dryRun && unit.failureId !== undefined) await this.deps.store.removeFailure(unit.failureId);
  }

  /** The unit is done (landed, unchanged or dead-lettered): the checkpoint may move past it. */
  private async settled(ticket: number): Promise<void> {
    this.deps.onProgress();
    await this.deps.checkpointer.finished(ticket);
  }

  private sample(unit: Unit, action: UnitSample['action'], body: Record<string, unknown>): void {
    this.deps.onSample?.({ origin: unit.origin, input: unit.input, body, action });
  }
}

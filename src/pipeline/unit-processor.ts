/**
 * What happens to one unit of a run, in read order: map → evolve the object
 * type → build the request → ask the ledger → push, and record the outcome
 * (acknowledged, unchanged or dead-lettered) before the unit counts as
 * finished for the checkpoint. Pushes run concurrently; {@link drain} waits
 * for every outcome to be recorded.
 *
 * This is the apply half: what a unit becomes (invalid, duplicate,
 * unchanged, create, update) is decided by the pure plan in
 * src/mapping/plan.ts from the facts gathered here; this class gathers them
 * (builds, asks the ledger once per batch) and carries the decisions out
 * (pushes, records, settles).
 */
import type { Logger } from 'pino';
import type { LoadedSync } from '../config/index.js';
import type { TargetType } from '../config/schema.js';
import type { CompiledMapping } from '../mapping/index.js';
import { MappingEvaluationError, buildRequest, canonicalJson, fingerprintOfJson, planBatch } from '../mapping/index.js';
import { isFerryError } from '../sdk/errors.js';
import { isRecord } from '../sdk/guards.js';
import type { ObjectTypeEvolver, Pusher, PushOutcome, ResolvedFields } from '../sink/index.js';
import type { DeadLetterStore, FailureWrite, FingerprintHit, LedgerStore, RunCounts } from '../state/index.js';
import type { Checkpointer } from './checkpointer.js';
import type { DuplicateIds } from './duplicate-ids.js';
import type { RunStop } from './run-stop.js';
import type { SourceCandidate, SourceFingerprinter } from './source-fingerprint.js';
import type { SeenIds } from './seen-ids.js';
import type { Unit } from './units.js';
import type { LoopSlices } from './fast/loop-slices.js';
import { applySourceDelete } from './source-deletes.js';
import { boundedFailure } from './dead-letter-excerpt.js';
import { explainMissingFields } from '../mapping/missing-fields.js';

/** A unit with its mapping's result: the mapped object, or why mapping failed. */
export interface MappedUnit {
  unit: Unit;
  mapped?: Record<string, unknown>;
  error?: string;
  /** When mapping failed: what the other expressions produced (the id, above all), for the dead-letter entry. */
  partial?: Record<string, unknown>;
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
  store: LedgerStore & DeadLetterStore;
  sync: LoadedSync;
  mapping: CompiledMapping;
  /** Decides "unchanged" before mapping; undefined: every unit is mapped. */
  sourcePrints: SourceFingerprinter | undefined;
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
  seen: SeenIds | undefined;
  /** Ids already taken earlier in this read: a later unit with one is not pushed. */
  duplicates: DuplicateIds;
  onSample: ((sample: UnitSample) => void) | undefined;
  onProgress: () => void;
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

/** A unit that mapped and built, waiting for the ledger's verdict. */
interface ReadyUnit {
  unit: Unit;
  ticket: number;
  remoteId: string;
  body: Record<string, unknown>;
  /** The body's canonical JSON: hashed for `print`, and the text sent (made once). */
  json: string;
  print: string;
  /** The source fingerprint to store with the acknowledged body, when it is known to have shaped it. */
  sourcePrint?: string;
}

/** What a batch's look at its sources found: per unit its candidate and whether it is unchanged (by index), and the ledger's entries for the rest. */
interface EarlyLook {
  candidates: (SourceCandidate | undefined)[];
  /** 1 where the ledger holds the unit's candidate as pushed with the same source fingerprint. */
  unchanged: Uint8Array;
  ledger: Map<string, FingerprintHit>;
  /** The remote ids whose entries `ledger` holds (found or not): those of the candidates not unchanged. */
  asked: Set<string>;
}

/** A batch's look at its sources, started by {@link UnitProcessor.lookAhead}. */
export type BatchLook = Promise<EarlyLook>;

type Built = { ok: true; remoteId: string; body: Record<string, unknown> } | { ok: false; reason: string; field: string | null; body?: unknown };

/** Evaluates the mapping; a throwing mapping is the unit's failure, not the run's. */
export async function mapUnit(mapping: CompiledMapping, unit: Unit): Promise<MappedUnit> {
  return mapUnitEager(mapping, unit);
}

/** {@link mapUnit} without a promise when the mapping needed none (no JSONata expression ran). */
function mapUnitEager(mapping: CompiledMapping, unit: Unit): MappedUnit | Promise<MappedUnit> {
  const mapped = mapping.evaluateEager(unit.input);
  if (!(mapped instanceof Promise)) return { unit, mapped };
  return mapped.then(
    (m): MappedUnit => ({ unit, mapped: m }),
    (error: unknown) => mappingFailure(unit, error),
  );
}

function mappingFailure(unit: Unit, error: unknown): MappedUnit {
  const partial = error instanceof MappingEvaluationError ? error.partial : undefined;
  return { unit, error: error instanceof Error ? error.message : String(error), ...(partial ? { partial } : {}) };
}

export class UnitProcessor {
  private readonly kind: TargetType;
  private readonly recording = new Set<Promise<void>>();
  /** See {@link nothingLive}; undefined until the first batch asks. */
  private noneLive: boolean | undefined;

  constructor(private readonly deps: UnitProcessorDeps) {
    this.kind = deps.sync.target.type;
  }

  /**
   * Processes units in read order. The ledger is asked once per batch (one
   * query instead of one per record); no remote id occurs twice, since a
   * later unit with an id an earlier one took is a duplicate, counted and
   * not pushed (see {@link DuplicateIds}). Returns false when the run started
   * stopping before every unit was handled (the rest stay unfinished, for
   * the next run).
   */
  async processBatch(items: readonly (Unit | MappedUnit)[], look: BatchLook = this.lookAhead(items)): Promise<boolean> {
    const early = await look;
    const ready: ReadyUnit[] = [];
    // An index loop: the entries() iterator and its [i, item] pairs would live across the awaits below, allocated.
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      // Let answers in, and the requests that follow them out, between slices of the batch.
      const turn = this.deps.slices.due();
      if (turn) await turn;
      const unit = 'unit' in item ? item.unit : item;
      this.deps.counts.read++;
      const ticket = this.deps.checkpointer.begin(unit.position, unit.lowestCursor);
      if (unit.op === 'delete') {
        this.deleteUnit(unit, ticket);
        continue;
      }
      const candidate = early.candidates[i];
      if (candidate && early.unchanged[i] === 1) {
        const pending = this.isDuplicate(candidate.remoteId, unit.origin)
          ? this.skipDuplicate(unit, ticket)
          : this.unchangedAtSource(unit, ticket, candidate.remoteId);
        if (pending) await pending;
        continue;
      }
      const mapping = 'unit' in item ? item : mapUnitEager(this.deps.mapping, item);
      const entry = mapping instanceof Promise ? await mapping : mapping;
      const building = this.build(entry);
      const built = building instanceof Promise ? await building : building;
      // The plan's first two rules (src/mapping/plan.ts) need no ledger: applied as the unit is built.
      if (!built.ok) {
        await this.deadLetterInvalid(unit, ticket, built);
        continue;
      }
      if (this.isDuplicate(built.remoteId, unit.origin)) {
        await this.skipDuplicate(unit, ticket);
        continue;
      }
      this.deps.seen?.add(built.remoteId);
      const keep = candidate?.remoteId === built.remoteId && this.deps.sourcePrints?.stillCurrent(candidate);
      const json = canonicalJson(built.body);
      ready.push({ unit, ticket, remoteId: built.remoteId, body: built.body, json, print: fingerprintOfJson(json), ...(keep ? { sourcePrint: candidate.sourcePrint } : {}) });
    }
    if (ready.length === 0) return !this.deps.stop.failed;
    const ledger = await this.ledgerFor(ready.map((r) => r.remoteId), early);
    const decisions = planBatch(ready, ledger);
    for (let i = 0; i < ready.length; i++) {
      if (this.deps.stop.stopping) return false;
      const unit = ready[i]!;
      const applied = this.apply(unit, decisions[i]!, ledger.get(unit.remoteId));
      if (applied) await applied;
    }
    return !this.deps.stop.failed;
  }

  /**
   * Starts the ledger's look at a batch, to hand to {@link processBatch}
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
    const look = await this.deps.store.unchangedAtSource(this.deps.sync.name, remoteIds, sourcePrints);
    // An unchanged id's entry was not fetched: a later unit of the batch that needs it asks again (see ledgerFor).
    const asked = new Set<string>();
    for (let k = 0; k < at.length; k++) {
      if (look.unchanged[k] === 1) unchanged[at[k]!] = 1;
      else asked.add(remoteIds[k]!);
    }
    return { candidates, unchanged, ledger: look.others, asked };
  }

  /** The ledger's entries for these ids: what the early look found, plus one query for the ids it did not ask about. */
  private async ledgerFor(remoteIds: string[], early: EarlyLook): Promise<Map<string, FingerprintHit>> {
    if (await this.nothingLive()) return early.ledger;
    const missing = [...new Set(remoteIds.filter((id) => !early.asked.has(id)))];
    if (missing.length === 0) return early.ledger;
    const found = await this.deps.store.fingerprints(this.deps.sync.name, missing);
    for (const [id, hit] of early.ledger) found.set(id, hit);
    return found;
  }

  /**
   * True when the ledger held no pushed record of this sync as the run's
   * first batch was looked at (a first run, a backfill after a reset): no
   * unit can then be unchanged or an update, and the two per-batch queries
   * are skipped (on a first run they would find nothing, at a cost per
   * record). It stays exact for the whole run because what the run itself
   * acknowledges is never looked up again: a later unit with a remote id an
   * earlier one took is a duplicate, skipped before the ledger is asked, and
   * the slices of a partitioned sync never share a remote id. Failed and
   * deleted entries decide nothing the absence of an entry does not.
   */
  private async nothingLive(): Promise<boolean> {
    // A change source looks up again what this run acknowledged earlier.
    if (this.deps.changes === true) return false;
    this.noneLive ??= !(await this.deps.store.hasLive(this.deps.sync.name));
    return this.noneLive;
  }

  /** The fast path, once per unchanged record: no promise unless a replayed entry goes or a checkpoint is due. */
  private unchangedAtSource(unit: Unit, ticket: number, remoteId: string): Promise<void> | undefined {
    this.deps.counts.unchanged++;
    this.deps.seen?.add(remoteId);
    const replayed = this.resolveReplayed(unit);
    // Nothing written for an unchanged unit: no reason to checkpoint sooner (a replayed entry's removal is a write).
    return replayed !== undefined ? replayed.then(() => this.settled(ticket)) : this.settled(ticket, true);
  }

  /**
   * Carries out the plan's decision for a built unit: unchanged (nothing to
   * send), or create/update: counted on a dry run, pushed otherwise. No
   * promise of its own for a push while the pusher has room (once per record).
   */
  private apply(ready: ReadyUnit, action: 'unchanged' | 'create' | 'update', known: FingerprintHit | undefined): Promise<void> | undefined {
    const { counts } = this.deps;
    const { unit, ticket, body } = ready;
    if (action === 'unchanged') return this.unchangedBody(ready, known!);
    const { pusher } = this.deps;
    if (!pusher) {
      counts[action === 'update' ? 'updated' : 'created']++;
      this.sample(unit, action, body);
      return this.settled(ticket);
    }
    const room = pusher.waitForCapacity();
    if (room) return room.then(() => this.pushUnlessStopping(ready));
    this.pushUnlessStopping(ready);
    return undefined;
  }

  /** Mapped, built and hashed to the body the ledger holds: nothing to send. */
  private async unchangedBody(ready: ReadyUnit, known: FingerprintHit): Promise<void> {
    this.deps.counts.unchanged++;
    await this.resolveReplayed(ready.unit);
    await this.vouchForSource(ready, known);
    this.sample(ready.unit, 'unchanged', ready.body);
    return this.settled(ready.ticket);
  }

  private pushUnlessStopping(ready: ReadyUnit): void {
    if (this.deps.stop.failed) return; // the run is stopping: this unit stays unfinished, for the next run
    this.push(ready);
  }

  private isDuplicate(remoteId: string, origin: string): boolean {
    return this.deps.changes !== true && this.deps.duplicates.isDuplicate(remoteId, origin);
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

  /** Waits until every push in flight has been answered and its outcome recorded. */
  async drain(): Promise<void> {
    await this.deps.pusher?.onIdle();
    await Promise.all(this.recording);
  }

  /** Without a promise unless the object type has to take new fields first. */
  private build(entry: MappedUnit): Built | Promise<Built> {
    const mapped = entry.mapped;
    if (!mapped) return { ok: false, reason: entry.error ?? 'mapping failed', field: null, body: entry.partial };
    const { evolver } = this.deps;
    if (!evolver || !isRecord(mapped.fields)) return this.buildBody(mapped);
    const resolving = evolver.resolve(mapped.fields);
    return resolving instanceof Promise ? resolving.then((resolved) => this.buildResolved(mapped, resolved)) : this.buildResolved(mapped, resolving);
  }

  private buildResolved(mapped: Record<string, unknown>, resolved: ResolvedFields): Built {
    if (resolved.rejected.length > 0) {
      const reason = resolved.reason ?? `fields not accepted by object type "${this.deps.sync.target.objectType?.name}": ${resolved.rejected.join(', ')}`;
      return { ok: false, reason, field: 'fields', body: mapped };
    }
    // Every field kept: the record as it was mapped.
    if (resolved.fields === mapped.fields) return this.buildBody(mapped);
    // Object.assign, not a spread with `fields` beside it: not optimised on Node 20 (see buildRequest).
    const withFields = Object.assign({}, mapped);
    withFields.fields = resolved.fields;
    return this.buildBody(withFields);
  }

  private buildBody(mapped: Record<string, unknown>): Built {
    const { evolver } = this.deps;
    const built = buildRequest(this.kind, mapped, {
      sourceId: this.deps.sourceId,
      ...(evolver ? { objectTypeId: evolver.objectTypeId, fieldTypes: evolver.fieldTypes, fieldLabels: evolver.fieldLabels } : {}),
    });
    return built.ok ? built : { ok: false, reason: built.reason, field: built.field, body: built.partialBody };
  }

  /** An unchanged body whose source fingerprint is new (a changed mapping, an older ledger): store it, so the next run skips mapping. */
  private async vouchForSource(ready: ReadyUnit, known: FingerprintHit): Promise<void> {
    if (ready.sourcePrint === undefined || ready.sourcePrint === known.sourceFingerprint || known.recordId === null) return;
    const { unit, remoteId, print, sourcePrint } = ready;
    await this.deps.store.recordAcknowledged({ sync: this.deps.sync.name, remoteId, fingerprint: print, recordId: known.recordId, origin: unit.origin, sourceFingerprint: sourcePrint });
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
  private async skipDuplicate(unit: Unit, ticket: number): Promise<void> {
    this.deps.counts.duplicates = (this.deps.counts.duplicates ?? 0) + 1;
    await this.resolveReplayed(unit);
    await this.settled(ticket);
  }

  private async deadLetterInvalid(unit: Unit, ticket: number, built: Extract<Built, { ok: false }>): Promise<void> {
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

/** The remote id of a (partly) mapped body, as the request builder would send it. */
function remoteIdOf(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const id = body.id;
  if (typeof id === 'string' && id.trim() !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return null;
}

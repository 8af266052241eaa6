/**
 * A unit's way to a request body: map → evolve the object type → build and
 * validate the request → its canonical text and fingerprint. What the plan
 * (src/mapping/plan.ts) needs of a unit that builds, and what the apply step
 * (apply-plan.ts) sends; a unit that does not build keeps its failure, for
 * the dead-letter.
 *
 * Each step answers without a promise unless it needed one (a JSONata
 * expression ran, the object type had to take new fields): this runs once per
 * record, and every promise is an allocation and a microtask turn more per
 * record.
 */
import type { LoadedSync } from '../config/index.js';
import type { TargetType } from '../config/schema.js';
import type { CompiledMapping } from '../mapping/index.js';
import { MappingEvaluationError, buildRequest, canonicalJson, fingerprintOfJson } from '../mapping/index.js';
import { isRecord } from '../sdk/guards.js';
import type { ObjectTypeEvolver, ResolvedFields } from '../sink/index.js';
import type { SourceCandidate, SourceFingerprinter } from './source-fingerprint.js';
import type { Unit } from './units.js';

/** A unit with its mapping's result: the mapped object, or why mapping failed. */
export interface MappedUnit {
  unit: Unit;
  mapped?: Record<string, unknown>;
  error?: string;
  /** When mapping failed: what the other expressions produced (the id, above all), for the dead-letter entry. */
  partial?: Record<string, unknown>;
}

/** Why a unit did not build, and what of its body there was. */
export interface BuildFailure {
  ok: false;
  reason: string;
  /** The field the request's validation refused, when one did. */
  field: string | null;
  body?: unknown;
}

export type Built = { ok: true; remoteId: string; body: Record<string, unknown> } | BuildFailure;

/** A unit that mapped and built: its request, ready to push. */
export interface ReadyUnit {
  unit: Unit;
  /** Its checkpoint ticket (Checkpointer.begin). */
  ticket: number;
  remoteId: string;
  body: Record<string, unknown>;
  /** The body's canonical JSON: hashed for `print`, and the text sent (made once). */
  json: string;
  print: string;
  /** The source fingerprint to store with the acknowledged body, when it is known to have shaped it. */
  sourcePrint?: string;
}

/** Evaluates the mapping; a throwing mapping is the unit's failure, not the run's. */
export async function mapUnit(mapping: CompiledMapping, unit: Unit): Promise<MappedUnit> {
  return mapUnitEager(mapping, unit);
}

/** {@link mapUnit} without a promise when the mapping needed none (no JSONata expression ran). */
export function mapUnitEager(mapping: CompiledMapping, unit: Unit): MappedUnit | Promise<MappedUnit> {
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

export interface UnitBuilderDeps {
  sync: LoadedSync;
  mapping: CompiledMapping;
  sourceId: string;
  evolver: ObjectTypeEvolver | undefined;
  sourcePrints: SourceFingerprinter | undefined;
}

export class UnitBuilder {
  private readonly kind: TargetType;

  constructor(private readonly deps: UnitBuilderDeps) {
    this.kind = deps.sync.target.type;
  }

  /** Maps (unless `item` was mapped already) and builds the unit's request. */
  build(item: Unit | MappedUnit): Built | Promise<Built> {
    const mapping = 'unit' in item ? item : mapUnitEager(this.deps.mapping, item);
    return mapping instanceof Promise ? mapping.then((entry) => this.buildMapped(entry)) : this.buildMapped(mapping);
  }

  /**
   * A built unit's request with its text and fingerprint. `candidate` is the
   * unit's source candidate: its fingerprint is stored with the body only
   * when it is the body's id and the object type has not gained fields since
   * (building this very unit may have added them).
   */
  ready(unit: Unit, ticket: number, built: Extract<Built, { ok: true }>, candidate: SourceCandidate | undefined): ReadyUnit {
    const keep = candidate?.remoteId === built.remoteId && this.deps.sourcePrints?.stillCurrent(candidate);
    const json = canonicalJson(built.body);
    return { unit, ticket, remoteId: built.remoteId, body: built.body, json, print: fingerprintOfJson(json), ...(keep ? { sourcePrint: candidate.sourcePrint } : {}) };
  }

  /** Without a promise unless the object type has to take new fields first. */
  private buildMapped(entry: MappedUnit): Built | Promise<Built> {
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
}

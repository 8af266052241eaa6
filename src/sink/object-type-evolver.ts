/**
 * Row fields the object type does not have yet, met while mapping, handled
 * per the target's `newFields` policy:
 * - `evolve`: add them to the object type (one PATCH in flight at a time;
 *   names that turn up meanwhile go into the next PATCH together);
 * - `freeze`: refuse them: the record is invalid (the caller dead-letters it);
 * - `discard`: drop them from the record (logged once per field).
 */
import { FerryError } from '../sdk/errors.js';
import type { FieldType } from '../sdk/types.js';
import type { TargetConfig } from '../config/schema.js';
import { MAX_FIELDS, applyDefinitions, changeToRequest, toRequest } from './field-schema.js';
import type { FieldChange, TargetObjectType } from './field-schema.js';
import type { SinkLogger } from './pusher.js';
import type { SinkService } from './service-port.js';

export type NewFieldsPolicy = TargetConfig['newFields'];

/**
 * The type of a new field, from its first value. The sink does not infer
 * types itself: the caller passes the inference (and discover() hints) that
 * typed the first records, so a field gets one type whether it appears in
 * the first records or later.
 */
export type InferFieldType = (field: string, sample: unknown) => FieldType;

export interface EvolverOptions {
  service: SinkService;
  /** The object type from {@link ensureTarget}; updated in place as fields are added. */
  objectType: TargetObjectType;
  /** Where `newFields` comes from. */
  target: Pick<TargetConfig, 'newFields'>;
  /** Types a new field from its first value. */
  inferType: InferFieldType;
  /** Accept new fields locally (as `evolve` would) without PATCHing: for previews and dry runs. */
  dryRun?: boolean;
  logger: SinkLogger;
}

export interface ResolvedFields {
  /** Every field the record keeps, with its type on the object type. */
  accepted: Map<string, FieldType>;
  /** Fields that make the record invalid (`freeze`, or no room under the 50-field limit). */
  rejected: string[];
  /** Why they were rejected, naming the fields: for the dead-letter. */
  reason?: string;
  /** Fields dropped under `discard`. */
  dropped: string[];
  /** The input values of the accepted fields (dropped ones removed). */
  fields: Record<string, unknown>;
}

export class ObjectTypeEvolver {
  private readonly service: SinkService;
  private readonly objectType: TargetObjectType;
  private readonly policy: NewFieldsPolicy;
  private readonly dryRun: boolean;
  private readonly logger: SinkLogger;
  private readonly inferType: InferFieldType;

  /** Names waiting for the next PATCH, with their inferred types. */
  private readonly pending = new Map<string, FieldType>();
  /** Names that did not fit under the field limit. */
  private readonly unfit = new Set<string>();
  private readonly discardLogged = new Set<string>();
  private inFlight: Promise<void> | undefined;
  /** Names the PATCH in flight carries: cleared from `pending`, not yet on the object type. */
  private flying = new Set<string>();
  private patches = 0;
  private readonly addedFields: FieldChange[] = [];

  constructor(options: EvolverOptions) {
    this.service = options.service;
    this.objectType = options.objectType;
    this.policy = options.target.newFields;
    this.dryRun = options.dryRun === true;
    this.logger = options.logger;
    this.inferType = options.inferType;
  }

  get objectTypeId(): string {
    return this.objectType.id;
  }

  /** Live view: grows as fields are added. */
  get fieldTypes(): ReadonlyMap<string, FieldType> {
    return this.objectType.fieldTypes;
  }

  get fieldLabels(): ReadonlyMap<string, string | undefined> {
    return this.objectType.labels;
  }

  /** PATCH requests sent so far. */
  get patchCount(): number {
    return this.patches;
  }

  /** Fields added during this run (planned only, in a dry run). */
  get added(): readonly FieldChange[] {
    return this.addedFields;
  }

  /**
   * Decide on a record's row fields, given each one's value (a sample used
   * to infer the type of a new field). Answers at once, without a promise,
   * when no field is new (the common case, once per record); a promise when
   * new fields wait for a PATCH.
   */
  resolve(fields: ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>): ResolvedFields | Promise<ResolvedFields> {
    const record = fields instanceof Map ? undefined : (fields as Readonly<Record<string, unknown>>);
    if (record !== undefined && this.hasEvery(record)) return new EveryFieldKept(record, this.objectType.fieldTypes);
    const entries: [string, unknown][] = fields instanceof Map ? [...(fields as ReadonlyMap<string, unknown>).entries()] : Object.entries(fields);
    if (this.policy === 'evolve' && entries.some(([name]) => !this.objectType.fieldTypes.has(name))) {
      const unknown = entries.filter(([name]) => !this.objectType.fieldTypes.has(name));
      if (this.dryRun) this.addLocally(unknown);
      else {
        for (const [name, sample] of unknown) {
          if (!this.pending.has(name) && !this.unfit.has(name)) this.pending.set(name, this.inferType(name, sample));
        }
        return this.flush(unknown.map(([name]) => name)).then(() => this.decide(entries));
      }
    }
    return this.decide(entries);
  }

  /** Whether the object type has every field of the record (the common case, once per record): asked without an entry array. */
  private hasEvery(fields: Readonly<Record<string, unknown>>): boolean {
    const known = this.objectType.fieldTypes;
    for (const name in fields) if (Object.hasOwn(fields, name) && !known.has(name)) return false;
    return true;
  }

  private decide(entries: readonly [string, unknown][]): ResolvedFields {
    const result: ResolvedFields = { accepted: new Map(), rejected: [], dropped: [], fields: {} };
    for (const [name, value] of entries) {
      const type = this.objectType.fieldTypes.get(name);
      if (type !== undefined) {
        result.accepted.set(name, type);
        result.fields[name] = value;
      } else if (this.policy === 'discard') {
        result.dropped.push(name);
        this.logDiscard(name);
      } else {
        result.rejected.push(name);
      }
    }
    if (result.rejected.length > 0) result.reason = this.reasonFor(result.rejected);
    return result;
  }

  private reasonFor(rejected: readonly string[]): string {
    const names = rejected.map((n) => JSON.stringify(n)).join(', ');
    const type = JSON.stringify(this.objectType.name);
    if (this.policy === 'freeze') return `field(s) ${names} not on object type ${type} (newFields: freeze)`;
    return `field(s) ${names} cannot be added to object type ${type}: it would exceed the service's limit of ${MAX_FIELDS} fields`;
  }

  private logDiscard(name: string): void {
    if (this.discardLogged.has(name)) return;
    this.discardLogged.add(name);
    this.logger.warn({ objectType: this.objectType.name, field: name }, 'field not on the object type; dropped (newFields: discard)');
  }

  private addLocally(unknown: readonly [string, unknown][]): void {
    for (const [name, sample] of unknown) {
      if (this.objectType.fieldTypes.has(name) || this.unfit.has(name)) continue;
      if (this.objectType.fieldTypes.size >= MAX_FIELDS) {
        this.unfit.add(name);
        continue;
      }
      const type = this.inferType(name, sample);
      this.objectType.fieldTypes.set(name, type);
      this.objectType.labels.set(name, undefined);
      this.addedFields.push({ name, type });
    }
  }

  /** Wait until none of `names` is pending or being added, sending PATCHes one at a time. */
  private async flush(names: readonly string[]): Promise<void> {
    while (names.some((n) => this.pending.has(n) || this.flying.has(n))) {
      if (this.inFlight) {
        // Someone else's PATCH: wait for it, then look again (our names may ride the next one).
        // Its failure is ours too: the schema could not be changed.
        await this.inFlight;
        continue;
      }
      const flight = this.patchPending();
      this.inFlight = flight;
      try {
        await flight;
      } finally {
        // A waiter may already have started the next PATCH; leave its state alone.
        if (this.inFlight === flight) {
          this.inFlight = undefined;
          this.flying = new Set();
        }
      }
    }
  }

  private async patchPending(): Promise<void> {
    // Merge onto the service's current schema: another run may have added fields since we looked.
    const { objectTypes } = await this.service.listObjectTypes({ sourceId: this.objectType.sourceId });
    const latest = objectTypes.find((t) => t.id === this.objectType.id);
    if (!latest) {
      this.pending.clear();
      throw new FerryError('FERRY_SERVICE_ERROR', `object type ${JSON.stringify(this.objectType.name)} (${this.objectType.id}) no longer exists in the service`, {
        hint: 'it was deleted during the run; run again to recreate it',
      });
    }
    const existing = new Set(latest.fieldDefinitions.map((d) => d.name));
    const batch = [...this.pending.entries()].filter(([name]) => !existing.has(name));
    const room = Math.max(0, MAX_FIELDS - latest.fieldDefinitions.length);
    const taking = batch.slice(0, room);
    for (const [name] of batch.slice(room)) this.unfit.add(name);
    this.pending.clear();
    this.flying = new Set(taking.map(([name]) => name));

    if (taking.length === 0) {
      applyDefinitions(this.objectType, latest.fieldDefinitions);
      return;
    }
    const definitions = [
      ...latest.fieldDefinitions.map(toRequest),
      ...taking.map(([name, type]) => changeToRequest({ name, type })),
    ];
    this.patches += 1;
    const updated = await this.service.updateObjectType(this.objectType.id, { fieldDefinitions: definitions });
    applyDefinitions(this.objectType, updated.fieldDefinitions);
    for (const [name, type] of taking) this.addedFields.push({ name, type });
    this.logger.info(
      { objectType: this.objectType.name, added: taking.map(([name, type]) => ({ name, type })) },
      'object type evolved with new fields',
    );
  }
}

/**
 * {@link ObjectTypeEvolver.resolve}'s answer when the object type has every
 * field: the record's own fields as they are, and the accepted map built
 * only when asked for (the push never asks). Building both for every record
 * was about 1 KB of garbage a record.
 */
class EveryFieldKept implements ResolvedFields {
  readonly rejected: string[] = [];
  readonly dropped: string[] = [];

  constructor(
    readonly fields: Record<string, unknown>,
    private readonly fieldTypes: ReadonlyMap<string, FieldType>,
  ) {}

  get accepted(): Map<string, FieldType> {
    const accepted = new Map<string, FieldType>();
    for (const name in this.fields) if (Object.hasOwn(this.fields, name)) accepted.set(name, this.fieldTypes.get(name)!);
    return accepted;
  }
}

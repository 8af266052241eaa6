/**
 * "Unchanged" decided before mapping. The ledger keeps, with each
 * acknowledged body, a hash of the source record and of everything else that
 * shaped the body: the target config (mapping included), the service ids the
 * body carries, the object type's field types, and ferry's version. When a
 * unit's hash equals the stored one, mapping it again would build the same
 * body, so the runner skips mapping, building and hashing the body.
 *
 * The record's side of the hash is its `dataText` when the source gave one
 * (see SourceRecord.dataText: equal texts mean equal data under the same
 * connector options and code, so the connector options and ferry's version
 * are part of the identity), else its data serialised here. The two are kept
 * apart by a tag, so a text never stands for another record's JSON.
 *
 * It stays exact because any doubt means the slow path: a changed mapping,
 * object type or connector option changes the identity (and every record is
 * mapped and compared by body, as before); an edited record changes its own
 * hash; a mapping that reads the clock or random numbers never takes the
 * fast path.
 */
import { createHash, hash } from 'node:crypto';
import { ferryPackageVersion } from '../sdk/ferry-package.js';
import { canonicalJson, compileMapping, fieldPath } from '../mapping/index.js';
import type { CompiledMapping } from '../mapping/index.js';
import type { ObjectTypeEvolver } from '../sink/index.js';
import { primaryKeyOf, type PreparedSync } from './prepare.js';
import type { Unit } from './units.js';

/**
 * Bump when ferry builds a different body from the same mapped object (the
 * package version covers releases; this covers changes between them).
 */
const BODY_RULES_VERSION = 1;

/** Bump when what a source fingerprint covers changes (2: connector options, and `dataText`). */
const SOURCE_PRINT_RULES = 2;

/** JSONata functions whose result is not a function of the record. */
const NON_DETERMINISTIC = /\$(now|millis|random|uuid)\b/;

/** A unit's remote id (from `map.id` alone) and its source fingerprint. */
export interface SourceCandidate {
  remoteId: string;
  sourcePrint: string;
  /** The identity it was computed with (see {@link SourceFingerprinter.stillCurrent}). */
  identity: string;
}

export class SourceFingerprinter {
  private identityPrint = '';
  private identityFieldCount = -1;

  /** `map.id` when it is one plain field name: read directly, no mapping call. */
  private readonly idField: string | undefined;
  /** `map.id` is the source's one primary-key field: a unit's origin key is a guess at its id that needs no read of its input. */
  private readonly keyIsId: boolean;

  private constructor(
    private readonly prepared: PreparedSync,
    private readonly idMapping: CompiledMapping,
    private readonly target: { sourceId: string; evolver: ObjectTypeEvolver | undefined },
  ) {
    const id = prepared.sync.target.map.id;
    const steps = typeof id === 'string' ? fieldPath(id) : undefined;
    this.idField = steps?.length === 1 ? steps[0] : undefined;
    const primaryKey = primaryKeyOf(prepared);
    this.keyIsId = this.idField !== undefined && primaryKey?.length === 1 && primaryKey[0] === this.idField;
  }

  /** Undefined when the fast path cannot be trusted for this sync (or is not wanted: dry runs show every body). */
  static for(prepared: PreparedSync, target: { sourceId: string; evolver: ObjectTypeEvolver | undefined }, dryRun: boolean): SourceFingerprinter | undefined {
    const { sync } = prepared;
    if (dryRun || sync.group || NON_DETERMINISTIC.test(JSON.stringify(sync.target.map))) return undefined;
    const compiled = compileMapping({ id: sync.target.map.id ?? null });
    if ('errors' in compiled) return undefined;
    return new SourceFingerprinter(prepared, compiled.mapping, target);
  }

  /**
   * The unit's remote id and source fingerprint; undefined when the id is
   * nothing usable (the slow path reports it). The id only has to find the
   * ledger entry: a stored source fingerprint is only ever kept under the id
   * its body was pushed with, so any deterministic way to get it is exact.
   * Even a wrong guess is: the ledger holds this text's fingerprint only
   * under the id the text maps to, so a guess that is not that id finds
   * no match, and the unit is mapped. So when the id field is the primary
   * key, the unit's origin key (its text) stands for the id, and a unit
   * with a text is looked up without reading its input (which a source
   * may parse only when read: see SourceRecord.data).
   */
  candidate(unit: Unit): SourceCandidate | undefined | Promise<SourceCandidate | undefined> {
    if (this.keyIsId && unit.inputText !== undefined && unit.originKey !== undefined) return this.candidateFor(unit.originKey, unit);
    const input = unit.input;
    if (this.idField !== undefined && typeof input === 'object' && input !== null && !Array.isArray(input)) {
      return this.candidateFor(Object.hasOwn(input, this.idField) ? (input as Record<string, unknown>)[this.idField] : undefined, unit);
    }
    return this.idMapping.evaluate(input).then(
      ({ id }) => this.candidateFor(id, unit),
      () => undefined,
    );
  }

  private candidateFor(id: unknown, unit: Unit): SourceCandidate | undefined {
    if (typeof id === 'number' || typeof id === 'bigint') id = String(id);
    if (typeof id !== 'string' || id === '') return undefined;
    const identity = this.identity();
    // The source's own text when it has one: no serialisation per record. Base64: a shorter string to keep and compare.
    const text = unit.inputText !== undefined ? `${identity}\nT${unit.inputText}` : `${identity}\nJ${serialize(unit.input)}`;
    return { remoteId: id, sourcePrint: hash('sha256', text, 'base64'), identity };
  }

  /**
   * Whether a candidate may be stored with the body just built: not if the
   * object type gained fields meanwhile (building this very unit may add
   * them), since then the body was shaped by another identity.
   */
  stillCurrent(candidate: SourceCandidate): boolean {
    return candidate.identity === this.identity();
  }

  /**
   * Everything besides the record that shapes its body. Object types only
   * gain fields during a run, so the field count tells when to recompute.
   */
  private identity(): string {
    const fieldTypes = this.target.evolver?.fieldTypes;
    const count = fieldTypes?.size ?? 0;
    if (count !== this.identityFieldCount) {
      const parts = [
        BODY_RULES_VERSION,
        SOURCE_PRINT_RULES,
        ferryPackageVersion(),
        canonicalJson(this.prepared.sync.target),
        // A source's dataText stands for its data only under the same options (as written: plain YAML data).
        canonicalJson(this.prepared.sync.source),
        this.target.sourceId,
        this.target.evolver?.objectTypeId ?? null,
        fieldTypes ? [...fieldTypes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null,
      ];
      // Base64: hashed again with every record, and a shorter prefix is fewer bytes to hash each time.
      this.identityPrint = createHash('sha256').update(JSON.stringify(parts)).digest('base64');
      this.identityFieldCount = count;
    }
    return this.identityPrint;
  }
}

/**
 * The record as text for its hash. Key order is left as the source gave it
 * (no sort per record, the cost that matters here): a source that reorders
 * keys only costs a slower run, never a wrong skip. For every SourceValue,
 * equal JSON text means equal input to the mapping (which sees the record
 * through toJsonSafe: Dates as ISO text, NaN as null, like JSON). Bigints,
 * which JSON.stringify refuses, fall back to the canonical form.
 */
function serialize(input: unknown): string {
  try {
    return JSON.stringify(input) ?? 'undefined';
  } catch {
    return `canonical:${canonicalJson(input)}`;
  }
}

/**
 * The analyst conventions of an export (docs/exports.md#analyst-conventions):
 * which layout it writes in, and the records as the destination receives
 * them — renamed to snake_case, carrying the load metadata columns.
 *
 * Which layout: the options `naming:` and `metadata:` when set; otherwise the
 * layout recorded in state for the export (its destination was made with
 * it); otherwise, for an export that ran before layouts were recorded, the
 * old one (API names, no metadata), and for a new export the analyst one.
 * The resolved layout is recorded before the run starts, so a run killed at
 * any moment is re-run in the same layout.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../sdk/guards.js';
import { snakeCase } from '../sdk/names.js';
import type { ExportConventions } from '../sdk/types.js';
import type { StateStore } from '../state/index.js';

export { snakeCase };

/** The layout of exports made before layouts were recorded. */
export const API_LAYOUT: Readonly<ExportConventions> = Object.freeze({ naming: 'api', metadata: false, nested: 'json' });
/** The layout of a new export. */
export const ANALYST_LAYOUT: Readonly<ExportConventions> = Object.freeze({ naming: 'snake_case', metadata: true, nested: 'struct' });

export const LOADED_AT = '_ferry_loaded_at';
export const LOAD_ID = '_ferry_load_id';
export const DELETED_AT = '_ferry_deleted_at';

/** The layout this run writes in, recorded in state (before the run starts). */
export async function resolveConventions(
  store: StateStore,
  exportKey: string,
  options: { naming?: ExportConventions['naming'] | undefined; metadata?: boolean | undefined; nested?: ExportConventions['nested'] | undefined },
): Promise<ExportConventions> {
  const recorded = await store.exportLayout(exportKey);
  const base = recorded ?? ((await store.runs({ sync: exportKey, limit: 1 })).length > 0 ? API_LAYOUT : ANALYST_LAYOUT);
  const naming = options.naming ?? base.naming;
  // A layout recorded before `nested` existed made its tables with JSON nested values: it keeps them. STRUCT
  // columns are part of the typed tables of snake_case: a new export that asks for the API's names gets JSON.
  const nested = options.nested ?? (recorded ? (recorded.nested ?? 'json') : naming === 'snake_case' ? base.nested : 'json');
  const layout: ExportConventions = { naming, metadata: options.metadata ?? base.metadata, nested };
  if (recorded?.naming !== layout.naming || recorded.metadata !== layout.metadata || recorded.nested !== layout.nested) await store.recordExportLayout(exportKey, layout);
  return layout;
}

/**
 * Renames the keys of objects to snake_case, stable and collision-free: two
 * keys of one object that meet on one name (`closeValue`, `close_value`)
 * do not merge — the key that already was that name keeps it, the other
 * gets `_` and four hex digits of its own name's hash (`close_value_1a2b`),
 * the same on every run.
 */
export class SnakeNames {
  readonly #cache = new Map<string, string>();

  name(key: string): string {
    let name = this.#cache.get(key);
    if (name === undefined) {
      name = snakeCase(key);
      if (this.#cache.size < 100_000) this.#cache.set(key, name);
    }
    return name;
  }

  /** The object's own keys renamed; values kept as they are. */
  rename(object: Readonly<Record<string, unknown>>, transform?: (key: string, value: unknown) => unknown): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let collided: string[] | undefined;
    for (const key in object) {
      const name = this.name(key);
      const value = transform ? transform(key, object[key]) : object[key];
      if (name in out) (collided ??= []).push(key);
      else out[name] = value;
    }
    if (collided === undefined) return out;
    return this.#renameColliding(object, transform);
  }

  #renameColliding(object: Readonly<Record<string, unknown>>, transform?: (key: string, value: unknown) => unknown): Record<string, unknown> {
    const byName = new Map<string, string[]>();
    for (const key in object) {
      const name = this.name(key);
      byName.set(name, [...(byName.get(name) ?? []), key]);
    }
    const out: Record<string, unknown> = {};
    for (const key in object) {
      const name = this.name(key);
      const unique = byName.get(name)!.length === 1 || key === name;
      out[unique ? name : `${name}_${createHash('sha1').update(key).digest('hex').slice(0, 4)}`] = transform ? transform(key, object[key]) : object[key];
    }
    return out;
  }
}

/** What a run adds to every record. */
export interface RecordStamp {
  conventions: ExportConventions;
  loadId: string;
  loadedAt: string;
  /** deletes: soft — every written record is live: its `_ferry_deleted_at` is null. */
  softDeletes: boolean;
}

/**
 * Records as the destination receives them: under `snake_case`, their keys,
 * the keys of the elements of arrays of objects (child tables in
 * `shape: relational`) and the field names of a row's `fields` renamed;
 * other nested values (an `owner`, a `summary`) keep the service's keys.
 * Then the metadata columns.
 */
export class RecordShaper {
  readonly #names = new SnakeNames();
  readonly #stamp: RecordStamp;

  constructor(stamp: RecordStamp) {
    this.#stamp = stamp;
  }

  /** The destination's name of a field of the service (the resource's key). */
  column(field: string): string {
    return this.#stamp.conventions.naming === 'snake_case' ? this.#names.name(field) : field;
  }

  /** Whether records pass through unchanged. */
  get identity(): boolean {
    const { conventions, softDeletes } = this.#stamp;
    return conventions.naming === 'api' && !conventions.metadata && !softDeletes;
  }

  shape(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const { conventions, loadId, loadedAt, softDeletes } = this.#stamp;
    const out = conventions.naming === 'snake_case' ? this.#names.rename(record, (key, value) => this.#nested(key, value)) : { ...record };
    if (conventions.metadata) {
      out[LOADED_AT] = loadedAt;
      out[LOAD_ID] = loadId;
    }
    if (softDeletes) out[DELETED_AT] = null;
    return out;
  }

  #nested(key: string, value: unknown): unknown {
    if (Array.isArray(value)) return value.length > 0 && value.every(isRecord) ? value.map((element: Record<string, unknown>) => this.#names.rename(element)) : value;
    if (key === 'fields' && isRecord(value)) return this.#names.rename(value);
    return value;
  }
}

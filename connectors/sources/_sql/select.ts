/**
 * Build the SELECT of a read: the relation, the user's `where:`, the
 * incremental condition `(cursor, key…) > (after.value, after.key…)` with
 * every value bound as a parameter, and ORDER BY cursor then key.
 */
import type { CursorPosition, ReadPartition } from '../../../src/sdk/index.js';
import type { SqlColumn } from './columns.js';
import type { SqlDialect } from './dialect.js';
import { lowerCursor } from './lag.js';

export interface ReadPlan {
  /** SQL after FROM: a quoted table name or `(<query>) AS q`. */
  relation: string;
  /** The user's `where:` fragment, ANDed. */
  where?: string;
  /** Column names to select; empty means `*`. */
  select: string[];
  cursor?: SqlColumn;
  keys: SqlColumn[];
  /** Read only this slice of a partitioned sync (the key columns are hashed). */
  partition?: ReadPartition;
}

export interface IncrementalSpec {
  after?: CursorPosition;
  lag?: number;
  nullCursor: 'include' | 'skip';
}

export interface BuiltQuery {
  sql: string;
  params: unknown[];
  /** How the stored position was applied, for the debug log. */
  mode: 'full' | 'first' | 'keyset' | 'cursor-inclusive' | 'lag';
}

/** The tie key split back into one text per key column; undefined when it does not fit the key. */
export function splitKey(key: string | undefined, keys: readonly SqlColumn[]): string[] | undefined {
  if (key === undefined || keys.length === 0) return undefined;
  const parts = key.split('\u001f');
  return parts.length === keys.length ? parts : undefined;
}

function keysetCondition(dialect: SqlDialect, params: unknown[], columns: SqlColumn[], values: string[]): string {
  if (dialect.rowValues) {
    const left = columns.map((column) => dialect.quote(column.name)).join(', ');
    const right = columns.map((column, i) => dialect.param(params, values[i] ?? '', column)).join(', ');
    return `(${left}) > (${right})`;
  }
  // (c > v) OR (c = v AND (k > w OR (k = w AND …)))
  const build = (i: number): string => {
    const column = columns[i]!;
    const name = dialect.quote(column.name);
    const gt = `${name} > ${dialect.param(params, values[i] ?? '', column)}`;
    if (i === columns.length - 1) return gt;
    const eq = `${name} = ${dialect.param(params, values[i] ?? '', column)}`;
    return `(${gt} OR (${eq} AND ${build(i + 1)}))`;
  };
  return build(0);
}

/** The SELECT for a plan: a full read when `incremental` is undefined. */
export function buildRead(dialect: SqlDialect, plan: ReadPlan, incremental: IncrementalSpec | undefined): BuiltQuery {
  const params: unknown[] = [];
  const conditions: string[] = [];
  if (plan.where) conditions.push(`(${plan.where})`);
  if (plan.partition) {
    const { index, count } = plan.partition;
    conditions.push(`${dialect.partitionBucket(plan.keys.map((key) => dialect.quote(key.name)), count)} = ${index}`);
  }
  const select = plan.select.length === 0 ? '*' : plan.select.map((name) => dialect.quote(name)).join(', ');
  const order: string[] = [];
  let mode: BuiltQuery['mode'] = 'full';

  const cursor = plan.cursor;
  if (incremental && cursor) {
    const c = dialect.quote(cursor.name);
    const { after, lag, nullCursor } = incremental;
    let condition: string | undefined;
    mode = 'first';
    if (after) {
      const value = String(after.value);
      const parts = splitKey(after.key, plan.keys);
      if (lag !== undefined && lag > 0) {
        mode = 'lag';
        condition = `${c} >= ${dialect.param(params, lowerCursor(value, lag, cursor.kind), cursor)}`;
      } else if (parts) {
        mode = 'keyset';
        condition = keysetCondition(dialect, params, [cursor, ...plan.keys], [value, ...parts]);
      } else {
        // No usable tie key: re-read the rows sharing the stored value (harmless, they are unchanged).
        mode = 'cursor-inclusive';
        condition = `${c} >= ${dialect.param(params, value, cursor)}`;
      }
    }
    if (nullCursor === 'skip') conditions.push(condition ? `(${c} IS NOT NULL AND ${condition})` : `${c} IS NOT NULL`);
    else if (condition) conditions.push(`(${c} IS NULL OR ${condition})`);
    order.push(dialect.nullsLastByDefault ? `${c} ASC NULLS FIRST` : `${c} ASC`);
  }
  for (const key of plan.keys) order.push(`${dialect.quote(key.name)} ASC`);

  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const orderBy = order.length > 0 ? ` ORDER BY ${order.join(', ')}` : '';
  return { sql: `SELECT ${select} FROM ${plan.relation}${where}${orderBy}`, params, mode };
}

/** `SELECT count(*)` of the rows a `nullCursor: skip` read leaves out. */
export function buildNullCount(dialect: SqlDialect, plan: ReadPlan, cursor: SqlColumn): string {
  const conditions = [`${dialect.quote(cursor.name)} IS NULL`];
  if (plan.where) conditions.unshift(`(${plan.where})`);
  return `SELECT count(*) AS n FROM ${plan.relation} WHERE ${conditions.join(' AND ')}`;
}

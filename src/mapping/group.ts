/**
 * `group: { by }`: fold many source records (one per utterance, one per line
 * item) into one unit the mapping sees as `{ key, records }`.
 *
 * A group is handed on once, complete. Unless the source is declared sorted
 * by the group key, ferry cannot know a group is complete before the input
 * ends, so every record is appended to a scratch SQLite file (memory stays
 * flat however large the input) and the groups are handed on after the last
 * record, in first-seen order. With `sorted: true` a group is handed on as
 * soon as the key changes and memory holds one group; a key that comes back
 * after its group was handed on breaks that promise and stops the read with
 * an error rather than pushing a partial group.
 */
import { compareCursorValues } from '../sdk/cursor.js';
import { FerryError } from '../sdk/errors.js';
import { formatOrigin } from '../sdk/origin.js';
import type { RecordOrigin, SourceData, SourceRecord } from '../sdk/types.js';
import { canonicalJson } from './fingerprint.js';
import { GroupState, GroupStore, type CursorBounds } from './group-store.js';
import { toJsonSafe } from './json-safe.js';

export interface Group {
  /** The group-key value, or an array of values for a compound key. */
  key: unknown;
  /** The group's records in source order (JSON-safe: bigints, dates and bytes converted). */
  records: SourceData[];
  origins: RecordOrigin[];
  /** The lowest and highest cursor of its records (incremental syncs); kept in the scratch file, not in memory per group. */
  cursor?: CursorBounds;
}

/** The first record's origin; for files, `lineEnd` is the last record's line. */
export interface GroupOrigin extends RecordOrigin {
  lineEnd?: number;
}

export interface GroupOptions {
  /** Directory for the scratch file. @default os.tmpdir() */
  spillDir?: string;
  /**
   * The input is ordered (contiguous) by the group key: stream each group as
   * soon as the key changes. A key that comes back is an error. @default false
   */
  sorted?: boolean;
  /** Sorted input: records of one group kept in memory before it is read back from the scratch file. @default 50000 */
  memoryLimitRecords?: number;
}

export interface Grouper {
  add(record: SourceRecord): Promise<void>;
  /** No more records: every remaining group is complete. */
  end(): Promise<void>;
  /** Yields the groups completed so far (all remaining ones after `end()`). */
  drain(): AsyncIterable<Group>;
  /** Deletes the scratch file. */
  close(): void;
}

export const DEFAULT_MEMORY_LIMIT_RECORDS = 50_000;
const PAGE = 200;

/** The group key of a record, as the mapping sees it: a value, or values for a compound key. */
export function groupKeyOf(data: SourceData, by: string | readonly string[]): unknown {
  return typeof by === 'string' ? toJsonSafe(data[by] ?? null) : by.map((field) => toJsonSafe(data[field] ?? null));
}

interface Current {
  id: number;
  keyText: string;
  key: unknown;
  /** In-memory copy while the group is under the memory limit; null once dropped. */
  records: SourceData[] | null;
  origins: RecordOrigin[] | null;
  /** Cursor bounds of this run of the key's records, merged into the store's when the key changes. */
  cursor: CursorBounds | undefined;
}

/** `bounds` widened by `value`. */
function widen(bounds: CursorBounds | undefined, value: string | number): CursorBounds {
  if (bounds === undefined) return { lowest: value, highest: value };
  if (compareCursorValues(value, bounds.highest) > 0) bounds.highest = value;
  else if (compareCursorValues(value, bounds.lowest) < 0) bounds.lowest = value;
  return bounds;
}

class SpillingGrouper implements Grouper {
  private store: GroupStore | undefined;
  private seq = 0;
  private ended = false;
  private current: Current | undefined;
  private readonly ready: Group[] = [];
  private readonly memoryLimit: number;
  private readonly sorted: boolean;

  constructor(
    private readonly by: string | readonly string[],
    private readonly options: GroupOptions,
  ) {
    this.memoryLimit = options.memoryLimitRecords ?? DEFAULT_MEMORY_LIMIT_RECORDS;
    this.sorted = options.sorted === true;
  }

  private open(): GroupStore {
    this.store ??= new GroupStore(this.options.spillDir);
    return this.store;
  }

  async add(record: SourceRecord): Promise<void> {
    if (this.ended) throw new Error('grouper: add() after end()');
    const store = this.open();
    const data = toJsonSafe(record.data) as SourceData;
    const key = groupKeyOf(data, this.by);
    const keyText = canonicalJson(key);
    const seq = ++this.seq;
    if (this.current?.keyText !== keyText) this.switchTo(store, key, keyText, seq, record.origin);
    const current = this.current!;
    store.append(current.id, seq, data, record.origin);
    if (record.cursor !== undefined && record.cursor !== null) current.cursor = widen(current.cursor, record.cursor);
    if (current.records && current.origins) {
      if (current.records.length < this.memoryLimit) {
        current.records.push(data);
        current.origins.push(record.origin);
      } else {
        current.records = null;
        current.origins = null;
      }
    }
  }

  private switchTo(store: GroupStore, key: unknown, keyText: string, seq: number, origin: RecordOrigin): void {
    this.closeCurrent(store);
    const group = store.group(keyText, seq);
    if (this.sorted && group.state === GroupState.emitted) {
      throw new FerryError(
        'FERRY_SOURCE_READ_FAILED',
        `group key ${keyText} comes back at ${formatOrigin(origin)} after its group was sent: the input is not sorted by the group key`,
        { hint: 'sort the source by group.by, or remove `sorted: true` so ferry holds every group until the input ends' },
      );
    }
    this.current = { id: group.id, keyText, key, records: this.sorted ? [] : null, origins: this.sorted ? [] : null, cursor: undefined };
  }

  /** The current key's run of records ended: its cursor bounds join the group's stored ones; sorted input, the group is complete. */
  private closeCurrent(store: GroupStore): void {
    const current = this.current;
    this.current = undefined;
    if (!current) return;
    let cursor = current.cursor;
    if (cursor !== undefined && !this.sorted) {
      // Unsorted input: the key may have had earlier runs.
      const stored = store.bounds(current.id);
      if (stored !== undefined) cursor = widen(widen(stored, cursor.lowest), cursor.highest);
      store.setBounds(current.id, cursor);
    }
    if (!this.sorted) return;
    const { records, origins } =
      current.records && current.origins ? { records: current.records, origins: current.origins } : store.read(current.id);
    store.setState(current.id, GroupState.emitted);
    this.ready.push({ key: current.key, records, origins, ...(cursor !== undefined ? { cursor } : {}) });
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.store) this.closeCurrent(this.store);
  }

  async *drain(): AsyncIterable<Group> {
    while (this.ready.length > 0) yield this.ready.shift()!;
    if (!this.ended || this.sorted || !this.store) return;
    const store = this.store;
    let after = 0;
    for (;;) {
      const page = store.unsent(after, PAGE);
      if (page.length === 0) return;
      for (const group of page) {
        after = group.firstSeq;
        const { records, origins } = store.read(group.id);
        const cursor = store.bounds(group.id);
        store.setState(group.id, GroupState.emitted);
        yield { key: JSON.parse(group.key) as unknown, records, origins, ...(cursor !== undefined ? { cursor } : {}) };
      }
    }
  }

  close(): void {
    this.store?.close();
    this.store = undefined;
  }
}

/** A grouper to feed records by hand (see {@link groupRecords} for the stream form). */
export function createGrouper(by: string | readonly string[], options: GroupOptions = {}): Grouper {
  return new SpillingGrouper(by, options);
}

/** The first record's origin, with the line range when every record came from the same file. */
export function groupOrigin(origins: readonly RecordOrigin[]): GroupOrigin {
  const first = origins[0] ?? {};
  const last = origins[origins.length - 1];
  if (
    first.file !== undefined &&
    first.line !== undefined &&
    last?.line !== undefined &&
    origins.length > 1 &&
    origins.every((o) => o.file === first.file)
  ) {
    // A loop, not Math.max(...lines): spreading a group of ~125,000 records or more overflows the call stack.
    let lineEnd = first.line;
    for (const origin of origins) if (origin.line !== undefined && origin.line > lineEnd) lineEnd = origin.line;
    return lineEnd === first.line ? { ...first } : { ...first, lineEnd };
  }
  return { ...first };
}

/**
 * Group a record stream by one field or several. Each group comes out once,
 * complete: at the end of the input, or as soon as the key changes when
 * `sorted` is set. Records within a group keep source order.
 */
export async function* groupRecords(
  records: AsyncIterable<SourceRecord>,
  by: string | string[],
  options: GroupOptions = {},
): AsyncIterable<{ key: unknown; records: SourceData[]; origin: GroupOrigin; cursor?: CursorBounds }> {
  const grouper = createGrouper(by, options);
  const handOn = (group: Group) => ({
    key: group.key,
    records: group.records,
    origin: groupOrigin(group.origins),
    ...(group.cursor !== undefined ? { cursor: group.cursor } : {}),
  });
  try {
    for await (const record of records) {
      await grouper.add(record);
      for await (const group of grouper.drain()) yield handOn(group);
    }
    await grouper.end();
    for await (const group of grouper.drain()) yield handOn(group);
  } finally {
    grouper.close();
  }
}

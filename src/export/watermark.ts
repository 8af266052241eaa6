/**
 * The high-watermark of an incremental export. List endpoints bound time
 * fields inclusively ("startedAfter" returns records at the bound too) and
 * return records in no promised order, so:
 * - the next run asks for records at or after the highest value exported,
 * - records sitting exactly at that value that were already exported are
 *   skipped by id (the ids are kept in the cursor's `key`, as JSON),
 * - the watermark never passes the run's start time (a record dated in the
 *   future does not hide the ones that arrive before that date), and
 * - it is committed only when a run completes: a stopped run has exported
 *   an unknown slice of the range, so the next run reads it all again.
 */
import type { CursorPosition } from '../sdk/types.js';

/** Ids kept for tie-breaking; beyond this, ties are re-exported (upserts absorb them). */
const MAX_TIES = 1000;

export class Watermark {
  readonly field: string;
  readonly #notAfterMs: number;
  #maxMs: number | undefined;
  #maxValue: string | undefined;
  #ties = new Set<string>();
  readonly #previousMs: number | undefined;
  readonly #previousTies: ReadonlySet<string>;

  constructor(field: string, stored: CursorPosition | undefined, runStartedMs: number) {
    this.field = field;
    this.#notAfterMs = runStartedMs;
    const storedMs = stored ? toMs(stored.value) : undefined;
    this.#previousMs = storedMs;
    this.#previousTies = new Set(storedMs === undefined ? [] : parseTies(stored?.key));
    if (storedMs !== undefined) {
      this.#maxMs = storedMs;
      this.#maxValue = String(stored!.value);
      this.#ties = new Set(this.#previousTies);
    }
  }

  /** The lower bound to ask the service for, as an ISO timestamp; undefined on a first run. */
  bound(): string | undefined {
    return this.#previousMs === undefined ? undefined : new Date(this.#previousMs).toISOString();
  }

  /** True for a record the previous run exported already (at the watermark, known id). */
  seen(item: Readonly<Record<string, unknown>>, id: string): boolean {
    if (this.#previousMs === undefined) return false;
    return toMs(item[this.field]) === this.#previousMs && this.#previousTies.has(id);
  }

  /** Note an exported record's cursor value. */
  observe(item: Readonly<Record<string, unknown>>, id: string): void {
    const raw = item[this.field];
    const ms = toMs(raw);
    if (ms === undefined || ms > this.#notAfterMs) return;
    if (this.#maxMs === undefined || ms > this.#maxMs) {
      this.#maxMs = ms;
      this.#maxValue = typeof raw === 'string' ? raw : new Date(ms).toISOString();
      this.#ties = new Set([id]);
    } else if (ms === this.#maxMs && this.#ties.size < MAX_TIES) {
      this.#ties.add(id);
    }
  }

  /** The position to commit when the run completes. */
  position(): CursorPosition | undefined {
    if (this.#maxValue === undefined) return undefined;
    return { value: this.#maxValue, key: JSON.stringify([...this.#ties].sort()) };
  }
}

function toMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function parseTies(key: string | undefined): string[] {
  if (!key) return [];
  try {
    const parsed: unknown = JSON.parse(key);
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

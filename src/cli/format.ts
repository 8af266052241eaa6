/**
 * Turning values into terminal text: aligned tables, durations, counts, ages.
 * Pure functions (no I/O, the clock is passed in) so they are tested directly.
 */
import type { CursorPosition } from '../sdk/types.js';

export interface Column {
  header: string;
  /** Numbers read best right-aligned. @default 'left' */
  align?: 'left' | 'right';
}

/**
 * An aligned text table with a header row. Cells are padded by their visible
 * width (characters, not bytes); the last column is never padded so lines
 * carry no trailing spaces.
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, i) =>
    Math.max(textWidth(column.header), ...rows.map((row) => textWidth(row[i] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i] ?? 0;
        const last = i === columns.length - 1;
        if (column.align === 'right') return pad(cell, width, 'left');
        return last ? cell : pad(cell, width, 'right');
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)].join('\n');
}

function textWidth(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number, side: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - textWidth(text)));
  return side === 'left' ? fill + text : text + fill;
}

/** `850 ms`, `12.3 s`, `4m 05s`, `1h 02m`; a dash when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) {
    const seconds = ms / 1000;
    return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds).toString()} s`;
  }
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) {
    return `${Math.floor(totalSeconds / 60)}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  }
  const totalMinutes = Math.round(totalSeconds / 60);
  return `${Math.floor(totalMinutes / 60)}h ${String(totalMinutes % 60).padStart(2, '0')}m`;
}

/** Thousands separated by commas, independent of the machine's locale. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '-';
  const [whole = '', fraction] = Math.abs(n).toString().split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `12 days ago`; the ISO text when it does not parse. */
export function formatAge(iso: string | null | undefined, now: number): string {
  if (!iso) return '-';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((now - at) / 1000);
  if (seconds < 0) return 'in the future';
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** A timestamp as `2025-03-01 14:05:09Z` (UTC, seconds): compact, unambiguous, sortable. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '-';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${at.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/**
 * A cursor exactly as stored (no rounding of timestamps or numerics), with
 * its tie-breaking key when there is one.
 */
export function formatCursor(cursor: CursorPosition | null | undefined): string {
  if (!cursor) return '-';
  const value = typeof cursor.value === 'number' ? String(cursor.value) : cursor.value;
  return cursor.key === undefined ? value : `${value} (key ${cursor.key})`;
}

/** Cut text to `max` characters with an ellipsis; newlines become spaces so a table row stays one line. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  const chars = [...flat];
  if (max <= 0 || chars.length <= max) return flat;
  return `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

/** The check-list mark of `ferry check`. */
export function mark(ok: boolean): string {
  return ok ? '✓' : '✗';
}

/** `1 failure`, `3 failures`. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : pluralForm}`;
}

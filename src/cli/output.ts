/** Printing for the CLI: the one place that writes to the terminal. */
import { isFerryError } from '../sdk/errors.js';

export function printError(error: unknown): void {
  if (isFerryError(error)) {
    console.error(error.describe());
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  console.error(`error: ${message}`);
  if (process.env.FERRY_DEBUG && error instanceof Error && error.stack) console.error(error.stack);
}

/** Print a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

interface PrintableSummary {
  sync: string;
  status: string;
  durationMs: number;
  counts: { read: number; created: number; updated: number; unchanged: number; failed: number; deleted: number; skipped: number };
  visible?: number;
  wouldDelete?: number;
  error?: string;
  changes: { kind: string; name: string; fields?: unknown }[];
}

/** The end-of-run table: one line per sync, then errors and schema changes. */
export function printRunSummaries(summaries: readonly PrintableSummary[]): void {
  const header = ['sync', 'status', 'read', 'created', 'updated', 'unchanged', 'failed', 'skipped', 'deleted', 'time'];
  const withVisible = summaries.some((s) => s.visible !== undefined);
  if (withVisible) header.push('in service');
  const rows = summaries.map((s) => {
    const row = [
      s.sync,
      s.status,
      String(s.counts.read),
      String(s.counts.created),
      String(s.counts.updated),
      String(s.counts.unchanged),
      String(s.counts.failed),
      String(s.counts.skipped),
      s.wouldDelete !== undefined ? `${s.wouldDelete} (dry)` : String(s.counts.deleted),
      `${(s.durationMs / 1000).toFixed(1)}s`,
    ];
    if (withVisible) row.push(s.visible === undefined ? '-' : String(s.visible));
    return row;
  });
  printTable(header, rows);
  for (const s of summaries) {
    for (const change of s.changes) console.log(`  ${s.sync}: ${change.kind} ${change.name}`);
    if (s.counts.failed > 0) console.log(`  ${s.sync}: ${s.counts.failed} record(s) in the dead-letter; see \`ferry failures list ${s.sync}\``);
    if (s.error) console.error(`  ${s.sync}: ${s.error}`);
  }
}

/** A plain aligned table on stdout. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/** Printing for the CLI: the one place that writes to the terminal. */
import { createLogger, errorFields, logFormat } from '../runtime/logger.js';
import { isFerryError } from '../sdk/errors.js';
import { describeLimits } from '../sink/index.js';
import type { PushLimits } from '../sink/index.js';

/**
 * The error that ended a command, on stderr: a JSON log line at level error
 * when logs are JSON (a scheduler's collector reads every stderr line as
 * JSON), otherwise the code, message, position and hint as text.
 */
export function printError(error: unknown, exitCode: number): void {
  if (logFormat() === 'json') {
    const message = error instanceof Error ? error.message : String(error);
    // Through console.error like every other line this module prints (one place to capture them).
    const destination = { write: (line: string) => console.error(line.trimEnd()) } as unknown as NodeJS.WritableStream;
    createLogger({ destination }).error({ ...errorFields(error), exitCode }, message);
    return;
  }
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
  counts: { read: number; created: number; updated: number; unchanged: number; failed: number; deleted: number; skipped: number; duplicates?: number; repaired?: number };
  duplicates?: readonly { remoteId: string; origin: string }[];
  visible?: number;
  wouldDelete?: number;
  limits?: PushLimits;
  error?: string;
  changes: { kind: string; name: string; fields?: unknown }[];
}

/**
 * The end-of-run table on stdout: one line per sync, then schema changes and
 * errors (the log on stderr has each error too, at level error). A dry run
 * says so above and below the table.
 */
export function printRunSummaries(summaries: readonly PrintableSummary[], options: { dryRun?: boolean } = {}): void {
  if (options.dryRun) console.log('DRY RUN: nothing was pushed and no state was written; the counts say what a run would do.\n');
  const header = ['sync', 'status', 'read', 'created', 'updated', 'unchanged', 'failed', 'skipped', 'deleted', 'time'];
  const withVisible = summaries.some((s) => s.visible !== undefined);
  if (withVisible) header.push('in service');
  const rows = summaries.map((s) => {
    const row = [
      s.sync,
      options.dryRun ? `${s.status} (dry run)` : s.status,
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
    if ((s.counts.repaired ?? 0) > 0) console.log(`  ${s.sync}: ${repairedNote(s.counts.repaired ?? 0)}`);
    if ((s.counts.duplicates ?? 0) > 0) console.log(`  ${s.sync}: ${duplicatesNote(s.counts.duplicates ?? 0, s.duplicates ?? [])}`);
    if (s.counts.failed > 0) console.log(`  ${s.sync}: ${s.counts.failed} record(s) in the dead-letter; see \`ferry failures list ${s.sync}\``);
    if (s.limits) console.log(`  ${s.sync}: pushed at ${describeLimits(s.limits)}`);
    if (s.error) console.log(`  ${s.sync}: ${s.error.replace(/\n/g, '\n  ')}`);
  }
  if (options.dryRun) console.log('\nDry run: nothing was pushed. Run without --dry-run to push.');
}

/** Records the source kept after changing them: counted once among the read (the table's other columns), named here. */
export function repairedNote(count: number): string {
  return `${count} input(s) repaired and kept (a ragged row, bytes replaced, a cue fixed, …): their records are counted once in the columns above; each repair is warned about in the log`;
}

/** Records of one read that repeated an id: the first won, these were not pushed. */
export function duplicatesNote(count: number, examples: readonly { remoteId: string; origin: string }[]): string {
  const named = examples.slice(0, 3).map((d) => `${d.origin} (id ${d.remoteId})`).join(', ');
  return `${count} record(s) not pushed: an earlier record of the same read had the same id, and the first wins${named ? `; e.g. ${named}` : ''}`;
}

/** A plain aligned table on stdout. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

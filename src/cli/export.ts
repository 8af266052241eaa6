import cliProgress from 'cli-progress';
import { runExports } from '../export/index.js';
import type { ExportSummary } from '../export/index.js';
import type { RunCounts } from '../state/index.js';
import { configFileOf, showsProgress } from './context.js';
import type { RegisterCommand } from './main.js';
import { printJson, printTable } from './output.js';

export const register: RegisterCommand = (command, setExitCode) => {
  command
    .argument('[exports...]', 'names of the exports to run')
    .option('--full-refresh', 'ignore the incremental watermark and export everything the filters select')
    .option('--json', 'print the summary as JSON on stdout')
    .action(async (names: string[], flags: { fullRefresh?: boolean; json?: boolean }) => {
      const progress = showsProgress(command);
      const summaries = await runExports({
        configFile: configFileOf(command),
        names,
        fullRefresh: flags.fullRefresh === true,
        quiet: progress,
        ...(progress ? { progress: createExportProgress } : {}),
      });
      if (flags.json) printJson({ exports: summaries });
      else printExportSummaries(summaries);
      setExitCode(Math.max(0, ...summaries.map((s) => s.exitCode)));
    });
};

/** The end-of-export table, then errors on stderr. */
export function printExportSummaries(summaries: readonly ExportSummary[]): void {
  const scanned = summaries.some((s) => s.changes);
  printTable(
    ['export', 'status', 'resource', 'destination', 'read', 'exported', 'deleted', 'skipped', ...(scanned ? ['changes'] : []), 'time'],
    summaries.map((s) => [
      s.export,
      s.status,
      s.resource,
      s.destination,
      String(s.counts.read),
      String(s.exported),
      String(s.counts.deleted),
      String(s.counts.skipped),
      ...(scanned ? [describeChanges(s)] : []),
      `${(s.durationMs / 1000).toFixed(1)}s`,
    ]),
  );
  for (const s of summaries) if (s.error) console.error(`  ${s.export}: ${s.error}`);
}

/** What a scan of changes found, in words; a dash for an export that does not scan. */
function describeChanges(summary: ExportSummary): string {
  const { changes } = summary;
  return changes ? `${changes.inserted} new, ${changes.updated} updated, ${changes.unchanged} unchanged` : '-';
}

/** A progress line on a TTY; off a TTY the JSON logs carry progress. */
function createExportProgress(name: string): { update(counts: RunCounts): void; stop(): void } {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${name} {value} read | {exported} exported | {rate}/s`, hideCursor: true, clearOnComplete: false, fps: 8 },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(0, 0, { exported: 0, rate: 0 });
  return {
    update(counts) {
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      bar.update(counts.read, { exported: counts.pushed, rate: Math.round(counts.read / seconds) });
    },
    stop() {
      bar.stop();
    },
  };
}

/** `ferry status [sync…]`: what each sync's last run did, where its cursor is, what is left to fix (collected by src/project/status.ts). */
import type { Command } from 'commander';
import { FerryError } from '../sdk/errors.js';
import { parseStateUrl } from '../state/index.js';
import type { RunEntry, ServiceLimits } from '../state/index.js';
import { addSourceLag, collectStatus } from '../project/status.js';
import type { SourceLag } from '../sdk/types.js';
import type { SyncStatus } from '../project/status.js';
import { configuredStateKeys, quietLogger, stateSyncNames, withProjectState } from './context.js';
import { formatAge, formatCount, formatCursor, formatDuration, formatTable, formatTimestamp, truncate } from './format.js';
import type { RegisterCommand } from './main.js';
import { duplicatesNote, printJson, repairedNote } from './output.js';

const COUNT_COLUMNS = ['read', 'created', 'updated', 'unchanged', 'failed', 'skipped', 'deleted'] as const;

/**
 * What runs learnt of each service: the concurrency and rate the last push
 * settled on and why not higher; the next run starts near them.
 */
export function formatServiceLimits(services: readonly ServiceLimits[], now: number): string {
  return `Learnt limits (the next run starts near them):\n${formatTable(
    [{ header: 'SERVICE' }, { header: 'CONCURRENCY', align: 'right' }, { header: 'WHY NOT MORE' }, { header: 'RATE /S', align: 'right' }, { header: 'WHY NOT MORE' }, { header: 'LEARNT' }],
    services.map((s) => [s.service, String(s.concurrency), s.concurrencyReason, s.rate === undefined ? '-' : String(s.rate), s.rateReason, formatAge(s.learntAt, now)]),
  ).replace(/^/gm, '  ')}`;
}

export function formatStatus(statuses: readonly SyncStatus[], now: number): string {
  if (statuses.length === 0) return 'No syncs: declare some in ferry.yaml (or an included file).';
  const table = formatTable(
    [
      { header: 'SYNC' },
      { header: 'LAST RUN' },
      { header: 'WHEN' },
      { header: 'DURATION', align: 'right' },
      ...COUNT_COLUMNS.map((c) => ({ header: c.toUpperCase(), align: 'right' as const })),
      { header: 'OPEN FAILURES', align: 'right' },
      { header: 'LIVE', align: 'right' },
      { header: 'CURSOR' },
    ],
    statuses.map((s) => [
      s.configured ? s.sync : `${s.sync} (not in config)`,
      s.lastRun?.status ?? 'never run',
      s.lastRun ? formatAge(s.lastRun.startedAt, now) : '-',
      formatDuration(s.lastRun?.durationMs),
      ...COUNT_COLUMNS.map((c) => (s.lastRun ? formatCount(s.lastRun.counts[c]) : '-')),
      formatCount(s.openFailures),
      formatCount(s.liveRecords),
      formatCursor(s.cursor),
    ]),
  );
  const sections = [table];
  for (const s of statuses) {
    if (s.lastRun?.error) sections.push(`${s.sync}: last run ended with: ${s.lastRun.error}`);
    const repaired = s.lastRun?.counts.repaired ?? 0;
    if (repaired > 0) sections.push(`${s.sync}: last run: ${repairedNote(repaired)}`);
    const duplicates = s.lastRun?.counts.duplicates ?? 0;
    if (duplicates > 0) sections.push(`${s.sync}: last run: ${duplicatesNote(duplicates, [])} (the run's log names them)`);
    if (s.sourceLag) sections.push(`${s.sync}: ${formatLag(s.sourceLag)}`);
    if (s.abandoned) sections.push(`${s.sync}: last run abandoned (${s.abandoned}); the next run takes its lock over and marks it aborted`);
  }
  for (const s of statuses) {
    if (!s.runs) continue;
    sections.push(`Runs of ${s.sync}:\n${s.runs.length === 0 ? '  (none)' : formatRuns(s.runs).replace(/^/gm, '  ')}`);
  }
  const failing = statuses.filter((s) => s.openFailures > 0).map((s) => s.sync);
  if (failing.length > 0) sections.push(`Open failures: see \`ferry failures list${failing.length === 1 ? ` ${failing[0]}` : ''}\`.`);
  return sections.join('\n\n');
}

/** A change source's lag line: bytes held back, how long since the stream reported, details, and a warning above the threshold. */
function formatLag(lag: SourceLag | { error: string }): string {
  if ('error' in lag) return `source lag unknown: ${lag.error}`;
  const parts = [
    ...(lag.bytes !== undefined ? [`source lag ${formatCount(lag.bytes)} bytes`] : []),
    ...(lag.seconds !== undefined ? [`last reported ${lag.seconds.toFixed(1)} s ago`] : []),
    ...Object.entries(lag.details ?? {}).map(([k, v]) => `${k} ${String(v)}`),
  ];
  return `${parts.join(', ')}${lag.warning ? `\n  WARNING: ${lag.warning}` : ''}`;
}

export function formatRuns(runs: readonly RunEntry[]): string {
  return formatTable(
    [
      { header: 'RUN' },
      { header: 'STARTED' },
      { header: 'STATUS' },
      { header: 'DURATION', align: 'right' },
      ...COUNT_COLUMNS.map((c) => ({ header: c.toUpperCase(), align: 'right' as const })),
      { header: 'ERROR' },
    ],
    runs.map((r) => [
      r.runId,
      formatTimestamp(r.startedAt),
      r.status,
      formatDuration(r.durationMs),
      ...COUNT_COLUMNS.map((c) => formatCount(r.counts[c])),
      r.error ? truncate(r.error, 80) : '',
    ]),
  );
}

function parseRunsOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new FerryError('FERRY_USAGE', `--runs takes a whole number ≥ 0, not "${value}"`);
  return n;
}

export const register: RegisterCommand = (command) => {
  command
    .argument('[sync...]', 'syncs to show (default: all)')
    .option('--runs <n>', 'also list the last N runs of each sync', parseRunsOption, 0)
    .option('--json', 'print the status as JSON on stdout')
    .action(async (names: string[], opts: { runs: number; json?: boolean }, command: Command) => {
      await withProjectState(command, async (config, store) => {
        const selected = await stateSyncNames(config, store, names);
        const statuses = await collectStatus(store, selected, configuredStateKeys(config), opts.runs);
        await addSourceLag(config, statuses, quietLogger());
        // Shared (postgres) state has a queue of runs across workers; loaded only then.
        const queue = parseStateUrl(config.state.url).kind === 'postgres' ? await (await import('./worker.js')).queueStatus(config) : undefined;
        const services = await store.serviceLimits();
        if (opts.json) printJson({ syncs: statuses, services, ...(queue ? { queue: queue.entries } : {}) });
        else {
          const learnt = services.length > 0 ? [formatServiceLimits(services, Date.now())] : [];
          console.log([formatStatus(statuses, Date.now()), ...learnt, ...(queue ? [queue.text] : [])].join('\n\n'));
        }
      });
    });
};

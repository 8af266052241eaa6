/**
 * `ferry failures list|purge|retry [sync]`: the dead-letter, i.e. records
 * ferry or the service refused, with the service's reason and where each
 * record came from.
 */
import type { Command } from 'commander';
import { runProject } from '../pipeline/run-project.js';
import { FerryError } from '../sdk/errors.js';
import type { FailureEntry } from '../state/index.js';
import { configFileOf, confirmOrThrow, stateSyncNames, withProjectState } from './context.js';
import { formatAge, formatTable, plural, truncate } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson, printRunSummaries } from './output.js';
import { createProgress } from './progress.js';

export const DEFAULT_LIST_LIMIT = 50;

/** The reason column is the one that grows; on a terminal it is cut to fit, in a pipe it is whole. */
export function formatFailures(failures: readonly FailureEntry[], now: number, reasonWidth: number | undefined): string {
  return formatTable(
    [
      { header: 'ID', align: 'right' },
      { header: 'SYNC' },
      { header: 'WHEN' },
      { header: 'KIND' },
      { header: 'STATUS' },
      { header: 'REMOTE ID' },
      { header: 'ORIGIN' },
      { header: 'REASON' },
    ],
    failures.map((f) => [
      String(f.id),
      f.sync,
      formatAge(f.createdAt, now),
      f.attempts > 1 ? `${f.kind} ×${f.attempts}` : f.kind,
      f.status === null ? '-' : String(f.status),
      f.remoteId ?? '-',
      f.origin ?? '-',
      reasonWidth === undefined ? f.reason.replace(/\s*\n\s*/g, ' ') : truncate(f.reason, reasonWidth),
    ]),
  );
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new FerryError('FERRY_USAGE', `--limit takes a whole number ≥ 1, not "${value}"`);
  return n;
}

export const register: RegisterCommand = (command, setExitCode) => {
  const failures = command;

  failures
    .command('list')
    .description('list dead-lettered records, newest first')
    .argument('[sync]', 'only this sync')
    .option('--limit <n>', 'show at most N entries', parseLimit, DEFAULT_LIST_LIMIT)
    .option('--json', 'print the entries (with mapped bodies and error bodies) as JSON on stdout')
    .action(listFailures);

  failures
    .command('purge')
    .description('delete dead-lettered records (they are not retried again)')
    .argument('[sync]', 'only this sync (default: all)')
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .action(purgeFailures);

  failures
    .command('retry')
    .description('map dead-lettered records again (current mapping and object type) and push them')
    .argument('[sync]', 'only this sync (default: every sync with open failures)')
    .option('--json', 'print the run summary as JSON on stdout')
    .action((sync: string | undefined, opts: { json?: boolean }, command: Command) => retryFailures(sync, opts, command, setExitCode));
};

async function listFailures(sync: string | undefined, opts: { limit: number; json?: boolean }, command: Command): Promise<void> {
  await withProjectState(command, async (config, store) => {
    if (sync !== undefined) await stateSyncNames(config, store, [sync]);
    const filter = sync === undefined ? {} : { sync };
    const entries = await store.failures({ ...filter, limit: opts.limit });
    const total = await store.failureCount(sync);
    if (opts.json) {
      printJson({ total, failures: entries });
      return;
    }
    if (entries.length === 0) {
      console.log(sync === undefined ? 'No failures.' : `No failures for sync ${sync}.`);
      return;
    }
    const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
    // What is left of the line for the reason, but never less than a readable 40.
    const reasonWidth = columns === undefined ? undefined : Math.max(40, columns - 100);
    console.log(formatFailures(entries, Date.now(), reasonWidth));
    if (total > entries.length) {
      console.log(`\nShowing ${entries.length} of ${total}; --limit ${total} shows all, --json shows bodies and error bodies.`);
    }
  });
}

async function purgeFailures(sync: string | undefined, opts: { yes?: boolean }, command: Command): Promise<void> {
  await withProjectState(command, async (config, store) => {
    if (sync !== undefined) await stateSyncNames(config, store, [sync]);
    const count = await store.failureCount(sync);
    const scope = sync === undefined ? 'of all syncs' : `of sync ${sync}`;
    if (!(await confirmOrThrow(`Purge ${plural(count, 'failure')} ${scope}?`, opts.yes === true))) {
      console.log('Nothing purged.');
      return;
    }
    const purged = await store.purgeFailures(sync);
    console.log(`Purged ${plural(purged, 'failure')} ${scope}.`);
  });
}

async function retryFailures(sync: string | undefined, opts: { json?: boolean }, command: Command, setExitCode: (code: number) => void): Promise<void> {
  const configFile = configFileOf(command);
  // Only syncs with something to replay run: a replay of nothing would still take each sync's lock.
  const names = await withProjectState(command, async (config, store) => {
    const candidates = sync === undefined ? config.syncs.map((s) => s.name) : await stateSyncNames(config, store, [sync]);
    const withFailures: string[] = [];
    for (const name of candidates) if ((await store.failureCount(name)) > 0) withFailures.push(name);
    return withFailures;
  });
  if (names.length === 0) {
    if (opts.json) printJson({ syncs: [] });
    else console.log(sync === undefined ? 'No failures to retry.' : `No failures to retry for sync ${sync}.`);
    return;
  }
  const summaries = await runProject({
    configFile,
    syncNames: names,
    retryFailures: true,
    quiet: process.stderr.isTTY === true,
    progress: createProgress,
  });
  if (opts.json) printJson({ syncs: summaries });
  else printRunSummaries(summaries);
  setExitCode(Math.max(0, ...summaries.map((s) => s.exitCode)));
}

/** `ferry state show|reset`: inspect or reset a sync's incremental state. */
import type { Command } from 'commander';
import { redactUrl } from '../sdk/redact.js';
import { FerryError } from '../sdk/errors.js';
import type { CursorPosition } from '../sdk/types.js';
import type { RunEntry, StateStore } from '../state/index.js';
import { confirmOrThrow, stateSyncNames, withProjectState } from './context.js';
import { formatAge, formatCursor, plural } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

export interface LockState {
  held: boolean;
  /** The run that holds it, when the last run of the sync is still marked running. */
  runId?: string;
  since?: string;
}

export interface SyncState {
  sync: string;
  configured: boolean;
  cursor: CursorPosition | null;
  liveRecords: number;
  openFailures: number;
  lock: LockState;
  lastRun: Pick<RunEntry, 'runId' | 'status' | 'startedAt' | 'finishedAt'> | null;
}

const PROBE_TTL_MS = 5_000;

function probeOwner(purpose: string): string {
  return `ferry-${purpose}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Whether a run holds the sync's lock. The store has no read-only lock query,
 * so this takes the lock and gives it straight back: a live run's lease makes
 * that fail. (A lease left by a crashed run has expired and is taken over,
 * which marks that run abandoned, as the next `ferry run` would.)
 */
export function lockState(store: StateStore, sync: string, lastRun: RunEntry | undefined): LockState {
  const owner = probeOwner('state-show');
  if (store.acquireLock(sync, owner, PROBE_TTL_MS)) {
    store.releaseLock(sync, owner);
    return { held: false };
  }
  return lastRun?.status === 'running' ? { held: true, runId: lastRun.runId, since: lastRun.startedAt } : { held: true };
}

export function collectState(store: StateStore, names: readonly string[], configured: ReadonlySet<string>): SyncState[] {
  return names.map((sync) => {
    const lock = lockState(store, sync, store.lastRun(sync));
    // Read after the probe: taking over a dead lease changes the last run's status.
    const lastRun = store.lastRun(sync);
    return {
      sync,
      configured: configured.has(sync),
      cursor: store.cursor(sync) ?? null,
      liveRecords: store.countLive(sync),
      openFailures: store.failureCount(sync),
      lock,
      lastRun: lastRun
        ? { runId: lastRun.runId, status: lastRun.status, startedAt: lastRun.startedAt, finishedAt: lastRun.finishedAt }
        : null,
    };
  });
}

export function formatState(states: readonly SyncState[], now: number): string {
  return states
    .map((s) => {
      const lock = !s.lock.held
        ? 'free'
        : s.lock.runId
          ? `held by run ${s.lock.runId} (started ${formatAge(s.lock.since, now)})`
          : 'held by another process';
      const rows: [string, string][] = [
        ['cursor', s.cursor ? formatCursor(s.cursor) : 'none (the next run reads everything)'],
        ['ledger', `${plural(s.liveRecords, 'live record')} acknowledged by the service`],
        ['failures', `${s.openFailures} open`],
        ['lock', lock],
        ['last run', s.lastRun ? `${s.lastRun.status}, ${formatAge(s.lastRun.startedAt, now)} (${s.lastRun.runId})` : 'never'],
      ];
      const title = s.configured ? s.sync : `${s.sync}  (not in the config any more; \`ferry state reset ${s.sync}\` forgets it)`;
      return [title, ...rows.map(([k, v]) => `  ${k.padEnd(9)} ${v}`)].join('\n');
    })
    .join('\n\n');
}

export const register: RegisterCommand = (program) => {
  const state = program.command('state').description('inspect or reset incremental state (cursor, ledger, failures)');

  state
    .command('show')
    .description('cursor (full precision), ledger size, open failures and lock of each sync')
    .argument('[sync]', 'only this sync')
    .option('--json', 'print the state as JSON on stdout')
    .action(async (sync: string | undefined, opts: { json?: boolean }, command: Command) => {
      await withProjectState(command, (config, store) => {
        const names = stateSyncNames(config, store, sync === undefined ? [] : [sync]);
        const states = collectState(store, names, new Set([...config.syncs.map((s) => s.name), ...config.exports.map((e) => `export:${e.name}`)]));
        const url = redactUrl(config.state.url);
        if (opts.json) {
          printJson({ stateUrl: url, syncs: states });
          return;
        }
        console.log(`state: ${url}\n`);
        console.log(states.length === 0 ? 'No syncs.' : formatState(states, Date.now()));
      });
    });

  state
    .command('reset')
    .description("forget a sync's cursor, ledger and failures (the next run re-reads and re-pushes everything)")
    .argument('<sync>', 'sync to reset')
    .option('--cursor-only', 'forget only the cursor: the next run re-reads everything but pushes only what changed')
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .action(async (sync: string, opts: { cursorOnly?: boolean; yes?: boolean }, command: Command) => {
      await withProjectState(command, async (config, store) => {
        stateSyncNames(config, store, [sync]);
        const cursorOnly = opts.cursorOnly === true;
        const question = cursorOnly
          ? `Reset the cursor of sync ${sync}? Its next run re-reads the whole source.`
          : `Reset sync ${sync} (cursor, ledger of ${plural(store.countLive(sync), 'record')}, ${plural(store.failureCount(sync), 'failure')})? Its next run re-pushes everything.`;
        if (!(await confirmOrThrow(question, opts.yes === true))) {
          console.log('Nothing reset.');
          return;
        }
        // Hold the sync's lock so a run in progress cannot checkpoint over the reset.
        const owner = probeOwner('state-reset');
        if (!store.acquireLock(sync, owner, 60_000)) {
          throw new FerryError('FERRY_SYNC_LOCKED', `sync "${sync}" is running; its state cannot be reset now`, {
            hint: 'wait for the run to finish (a crashed run releases its lock after 60 seconds)',
          });
        }
        try {
          store.reset(sync, cursorOnly ? { cursor: true } : undefined);
        } finally {
          store.releaseLock(sync, owner);
        }
        console.log(cursorOnly ? `Reset the cursor of sync ${sync}.` : `Reset sync ${sync}: cursor, ledger and failures.`);
      });
    });
};

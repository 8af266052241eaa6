/** `ferry state show|reset`: inspect or reset a sync's incremental state. */
import type { Command } from 'commander';
import { upstreamOf } from '../pipeline/source-upstream.js';
import { redactUrl } from '../sdk/redact.js';
import { collectState, resetSync } from '../project/sync-state.js';
import type { SyncState } from '../project/sync-state.js';
import { configuredStateKeys, confirmOrThrow, quietLogger, stateSyncNames, withProjectState } from './context.js';
import { formatAge, formatCursor, plural } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

export function formatState(states: readonly SyncState[], now: number): string {
  return states
    .map((s) => {
      const lock = s.lock.stale
        ? `stale (${s.lock.stale}); the next run takes it over`
        : !s.lock.held
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

export const register: RegisterCommand = (state) => {

  state
    .command('show')
    .description('cursor (full precision), ledger size, open failures and lock of each sync')
    .argument('[sync]', 'only this sync')
    .option('--json', 'print the state as JSON on stdout')
    .action(async (sync: string | undefined, opts: { json?: boolean }, command: Command) => {
      await withProjectState(command, async (config, store) => {
        const names = await stateSyncNames(config, store, sync === undefined ? [] : [sync]);
        const states = await collectState(store, names, configuredStateKeys(config));
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
        await stateSyncNames(config, store, [sync]);
        const cursorOnly = opts.cursorOnly === true;
        // A change source's slot holds WAL for the position being forgotten: it goes with it.
        const upstream = await upstreamOf(config, sync);
        const releases = upstream ? ` and drop what the ${upstream.source.name} source created upstream (its replication slot, and the publication if ferry created it)` : '';
        const question = cursorOnly
          ? `Reset the cursor of sync ${sync}${releases}? Its next run re-reads the whole source.`
          : `Reset sync ${sync} (cursor, ledger of ${plural(await store.countLive(sync), 'record')}, ${plural(await store.failureCount(sync), 'failure')})${releases}? Its next run re-pushes everything.`;
        if (!(await confirmOrThrow(question, opts.yes === true))) {
          console.log('Nothing reset.');
          return;
        }
        await resetSync(store, sync, { cursorOnly }, quietLogger());
        for (const line of (await upstream?.release(quietLogger())) ?? []) console.log(`${sync}: ${line}`);
        console.log(cursorOnly ? `Reset the cursor of sync ${sync}.` : `Reset sync ${sync}: cursor, ledger and failures.`);
      });
    });
};

import type { RegisterCommand } from './main.js';
import { FerryError } from '../sdk/errors.js';
import { runProject } from '../pipeline/run-project.js';
import type { RunSummary } from '../pipeline/run-sync.js';
import { configFileOf, showsProgress } from './context.js';
import { createProgress } from './progress.js';
import { printJson, printRunSummaries } from './output.js';

export const register: RegisterCommand = (command, setExitCode) => {
  command
    .argument('[syncs...]', 'names of the syncs to run')
    .option('--full-refresh', 'ignore stored cursors and re-read everything (unchanged records still cost no request)')
    .option('--dry-run', 'map and validate, push nothing, write no state')
    .option('--follow', 'stream one sync\'s changes until SIGINT/SIGTERM instead of draining what is pending and exiting (postgres-cdc)')
    .option('--force-deletes', 'let deletes: mirror delete above maxDeletePercent')
    .option('--verify', 'after each sync, count what the service shows through its read side')
    .option('--json', 'print the summary as JSON on stdout')
    .option('--queue', 'put the runs on the queue for `ferry worker`s instead of running them here (postgres state)')
    .option('--wait', 'with --queue: wait for the queued runs to finish and exit with their exit code')
    .option('--metrics-file <path>', 'write Prometheus metrics to this file when the run ends, also on failure (docs/metrics.md)')
    .action(async (names: string[], flags: { follow?: boolean; fullRefresh?: boolean; dryRun?: boolean; forceDeletes?: boolean; verify?: boolean; json?: boolean; queue?: boolean; wait?: boolean; metricsFile?: string }) => {
      if (flags.queue && flags.metricsFile !== undefined) {
        throw new FerryError('FERRY_USAGE', '--metrics-file does not apply to --queue: the runs happen on the workers', {
          hint: 'scrape the workers\' /metrics (ferry worker --health-port) instead',
        });
      }
      // Loaded only here: the queue client (pg-boss) is not needed by a plain run.
      if (flags.queue) return setExitCode(await (await import('./worker.js')).queueRuns(configFileOf(command), names, flags));
      const progress = showsProgress(command);
      const summaries: RunSummary[] = await runProject({
        configFile: configFileOf(command),
        syncNames: names,
        fullRefresh: flags.fullRefresh === true,
        dryRun: flags.dryRun === true,
        forceDeletes: flags.forceDeletes === true,
        ...(flags.follow ? { follow: true } : {}),
        verify: flags.verify === true,
        ...(flags.metricsFile !== undefined ? { metricsFile: flags.metricsFile } : {}),
        quiet: progress,
        ...(progress ? { progress: createProgress } : {}),
      });
      const dryRun = flags.dryRun === true;
      if (flags.json) printJson({ ...(dryRun ? { dryRun } : {}), syncs: summaries });
      else printRunSummaries(summaries, { dryRun });
      const exit = Math.max(0, ...summaries.map((s) => s.exitCode));
      if (summaries.length === 0) throw new FerryError('FERRY_USAGE', 'no syncs to run', { hint: 'add syncs to ferry.yaml or an included file' });
      setExitCode(exit);
    });
};

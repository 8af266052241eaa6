/** `ferry ask "<question>"`: one ask-assistant run, polled until it ends. */
import type { Command } from 'commander';
import { openService } from '../runtime/service.js';
import { loadProject } from '../runtime/project.js';
import { FerryError } from '../sdk/errors.js';
import { configFileOf, quietLogger } from './context.js';
import { formatDuration } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new FerryError('FERRY_USAGE', `--timeout takes a number of seconds > 0, not "${value}"`);
  }
  return seconds;
}

export const register: RegisterCommand = (command, setExitCode) => {
  command
    .argument('<question>', 'the question (quote it)')
    .option('--timeout <seconds>', 'give up after this many seconds', parseTimeout, 120)
    .option('--json', 'print the run envelope as JSON on stdout')
    .action(async (question: string, opts: { timeout: number; json?: boolean }, command: Command) => {
      if (question.trim() === '') throw new FerryError('FERRY_USAGE', 'the question is empty');
      const config = await loadProject(configFileOf(command));
      const service = await openService(config, { logger: quietLogger() });
      const started = Date.now();
      const showProgress = !opts.json && process.stderr.isTTY === true;
      try {
        const run = await service.client.ask(question, {
          deadlineMs: opts.timeout * 1000,
          ...(showProgress
            ? { onPoll: () => process.stderr.write(`still thinking… (${formatDuration(Date.now() - started)})\n`) }
            : {}),
        });
        const took = Date.now() - started;
        if (opts.json) {
          printJson({ ...run, durationMs: took });
          if (run.status !== 'completed') setExitCode(3);
          return;
        }
        if (run.status === 'completed') {
          console.log(run.output ?? '');
          console.error(`\n(${run.status} in ${formatDuration(took)}; thread ${run.threadId}, run ${run.runId})`);
          return;
        }
        throw new FerryError('FERRY_ASK_FAILED', `the assistant run ${run.status}${run.error ? `: ${run.error}` : ''}`, {
          details: { threadId: run.threadId, runId: run.runId, status: run.status },
        });
      } finally {
        await service.close();
      }
    });
};

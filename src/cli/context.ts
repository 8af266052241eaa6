/**
 * What the project and inspection commands share: the `-c` file, a quiet
 * logger for connector calls, the sync names a state command may address, and
 * asking for confirmation before destroying state.
 */
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/index.js';
import { createLogger } from '../runtime/logger.js';
import { loadProject, openProjectState } from '../runtime/project.js';
import { FerryError } from '../sdk/errors.js';
import type { StateStore } from '../state/index.js';

/** The project file named by the global `-c, --config` option. */
export function configFileOf(command: Command): string {
  const { config } = command.optsWithGlobals<{ config?: string }>();
  return config ?? 'ferry.yaml';
}

/**
 * A progress bar on stderr: only on a terminal, and not with `--quiet`. While
 * it shows, logs below warn would tear it, so the run logs at warn.
 */
export function showsProgress(command: Command): boolean {
  return process.stderr.isTTY === true && command.optsWithGlobals<{ quiet?: boolean }>().quiet !== true;
}

/**
 * Logs of inspection commands go to stderr at `warn` unless FERRY_LOG_LEVEL
 * says otherwise: their stdout is a table or JSON, and info chatter would bury it.
 */
export function quietLogger(): Logger {
  return createLogger({ level: process.env.FERRY_LOG_LEVEL ?? 'warn' });
}

/** Load the project and open its state store; the store is closed however `fn` ends. */
export async function withProjectState<T>(
  command: Command,
  fn: (config: LoadedConfig, store: StateStore) => Promise<T> | T,
): Promise<T> {
  // These commands read the state: an unset ${VAR} in some sync's options is no reason to refuse them.
  const config = await loadProject(configFileOf(command), { unsetInSyncs: 'warn' });
  for (const warning of config.warnings) quietLogger().warn(warning);
  const store = await openProjectState(config);
  try {
    return await fn(config, store);
  } finally {
    await store.close();
  }
}

export { configuredStateKeys, stateSyncNames } from '../project/sync-names.js';

/**
 * Destructive commands ask first on a terminal. Without a terminal there is
 * nobody to ask, so `--yes` is required: a script must say what it means.
 */
export async function confirmOrThrow(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new FerryError('FERRY_USAGE', 'refusing to change state without confirmation: stdin is not a terminal', {
      hint: 'pass --yes to confirm',
    });
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

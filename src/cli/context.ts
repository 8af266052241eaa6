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
import { partitionKey, partitionsOf } from '../pipeline/partitions.js';
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
  const config = await loadProject(configFileOf(command));
  const store = await openProjectState(config);
  try {
    return await fn(config, store);
  } finally {
    await store.close();
  }
}

/**
 * Sync names a state command addresses: the ones given, or every sync the
 * config declares or the state remembers. A name known to neither is a typo
 * (usage error), while a sync removed from the config keeps its state
 * reachable until it is reset.
 */
/** The state keys the config accounts for: its syncs, the slices of partitioned syncs, and `export:<name>`. */
export function configuredStateKeys(config: LoadedConfig): Set<string> {
  const slices = config.syncs.flatMap((s) => partitionsOf(s).flatMap((p) => (p ? [partitionKey(s.name, p)] : [])));
  return new Set([...config.syncs.map((s) => s.name), ...slices, ...config.exports.map((e) => `export:${e.name}`)]);
}

export async function stateSyncNames(config: LoadedConfig, store: StateStore, names: readonly string[]): Promise<string[]> {
  const known = [...new Set([...config.syncs.map((s) => s.name), ...(await store.syncs())])];
  if (names.length === 0) return known;
  for (const name of names) {
    if (!known.includes(name)) {
      throw new FerryError('FERRY_USAGE', `no sync named "${name}" in ${config.file} or in its state`, {
        hint: `known syncs: ${known.join(', ') || '(none)'}`,
      });
    }
  }
  return [...new Set(names)];
}

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

/**
 * What a change source keeps upstream for a sync, outside a run: its lag as
 * `ferry status` shows it (SourceDefinition.lag: a replication slot's
 * retained WAL, a warning above the source's threshold or when the slot is
 * gone), and releasing it on `ferry state reset` (SourceDefinition.reset).
 */
import type { LoadedConfig, LoadedSync } from '../config/index.js';
import type { ConnectorLogger, CursorPosition, SourceDefinition, SourceLag } from '../sdk/types.js';
import type { PreparedSync } from './prepare.js';
import { inspectSync } from './prepare.js';

const LAG_TIMEOUT_MS = 10_000;

/** The lag of the sync's source; undefined when the source reports none; `error` when it could not be asked. */
export async function sourceLagOf(config: LoadedConfig, sync: LoadedSync, cursor: CursorPosition | undefined, logger: ConnectorLogger): Promise<SourceLag | { error: string } | undefined> {
  const prepared = await preparedQuietly(config, sync);
  const lag = prepared?.source.lag;
  if (!prepared || !lag) return undefined;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      lag.call(prepared.source, {
        options: prepared.options,
        baseDir: sync.baseDir,
        syncName: sync.name,
        logger,
        signal: controller.signal,
        ...(typeof cursor?.value === 'string' ? { resumeFrom: cursor.value } : {}),
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${LAG_TIMEOUT_MS / 1000} s`)), LAG_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    controller.abort();
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** A sync that does not prepare (a plugin not installed here) has nothing upstream to show or release; `ferry check` says why. */
async function preparedQuietly(config: LoadedConfig, sync: LoadedSync): Promise<PreparedSync | undefined> {
  return (await inspectSync(config, sync).catch(() => ({ prepared: undefined }))).prepared;
}

/** Whether the sync's source keeps something upstream that `ferry state reset` releases (a replication slot). */
export async function upstreamOf(config: LoadedConfig, syncName: string): Promise<{ release(logger: ConnectorLogger): Promise<string[]>; source: SourceDefinition } | undefined> {
  const sync = config.syncs.find((s) => s.name === syncName);
  const prepared = sync ? await preparedQuietly(config, sync) : undefined;
  const reset = prepared?.source.reset;
  if (!sync || !prepared || !reset) return undefined;
  return {
    source: prepared.source,
    release: (logger) => reset.call(prepared.source, { options: prepared.options, baseDir: sync.baseDir, syncName: sync.name, logger, signal: new AbortController().signal }),
  };
}

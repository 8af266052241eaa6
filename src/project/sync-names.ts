/** The names a state command (or the console) may address: the config's syncs and exports, and what the state remembers. */
import type { LoadedConfig } from '../config/index.js';
import { partitionKey, partitionsOf } from '../pipeline/partitions.js';
import { FerryError } from '../sdk/errors.js';
import type { StateStore } from '../state/index.js';

/** The state keys the config accounts for: its syncs, the slices of partitioned syncs, and `export:<name>`. */
export function configuredStateKeys(config: LoadedConfig): Set<string> {
  const slices = config.syncs.flatMap((s) => partitionsOf(s).flatMap((p) => (p ? [partitionKey(s.name, p)] : [])));
  return new Set([...config.syncs.map((s) => s.name), ...slices, ...config.exports.map((e) => `export:${e.name}`)]);
}

/**
 * Sync names a state command addresses: the ones given, or every sync the
 * config declares or the state remembers. A name known to neither is a typo
 * (usage error), while a sync removed from the config keeps its state
 * reachable until it is reset.
 */
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

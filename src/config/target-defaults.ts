/**
 * A source's default mapping (SourceDefinition.targetDefaults) under the
 * user's: the user's `map:` keys replace the default's, key by key at the top
 * level (`sender: { email: from }` replaces the default's whole `sender`), and
 * the user's `group:` replaces the default's grouping. One place decides this,
 * so `ferry check`, `preview`, `run` and the key scan of `deletes: mirror` see
 * the same mapping.
 */
import type { DefaultMap, TargetDefaults } from '../sdk/types.js';
import type { MapSpec } from './schema.js';
import type { LoadedSync, ResolvedSync } from './types.js';

/**
 * The sync with its effective mapping, or a reason it has none (no `map:`
 * and no default for the target type).
 */
export function withTargetDefaults(
  sync: LoadedSync,
  defaults: TargetDefaults | undefined,
  connector: string,
): { sync: ResolvedSync } | { missing: string } {
  const own = sync.target.map;
  if (!defaults) {
    if (own !== undefined) return { sync: { ...sync, target: { ...sync.target, map: own } } };
    return {
      missing: `target.map is required: the ${connector} source has no default mapping for target type ${sync.target.type} (the transcript, eml, maildir and slack-export sources have defaults for conversation and message)`,
    };
  }
  const map: MapSpec = { ...copyMap(defaults.map), ...(own ?? {}) };
  const group = sync.group ?? (defaults.group ? { by: typeof defaults.group.by === 'string' ? defaults.group.by : [...defaults.group.by], ...(defaults.group.sorted === undefined ? {} : { sorted: defaults.group.sorted }) } : undefined);
  const resolved: ResolvedSync = { ...sync, target: { ...sync.target, map } };
  if (group) resolved.group = group;
  return { sync: resolved };
}

/** The connector's frozen literal as a config-shaped mapping (the same shape, minus readonly). */
function copyMap(map: DefaultMap): MapSpec {
  return structuredClone<MapSpec>(map);
}

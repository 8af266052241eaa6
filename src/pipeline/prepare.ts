/**
 * Everything a sync needs before reading: its connector loaded and its
 * options validated, its mapping compiled. Errors from both are reported
 * together, with file:line:col, so `ferry check` shows them all at once.
 */
import { loadConnector } from '../config/connectors.js';
import { formatConfigIssues, formatPath, validateWith, withTargetDefaults } from '../config/index.js';
import type { ConfigIssue, LoadedConfig, LoadedSync, ResolvedSync } from '../config/index.js';
import { checkTargetFields, compileMapping } from '../mapping/index.js';
import type { CompiledMapping } from '../mapping/index.js';
import { FerryError } from '../sdk/errors.js';
import type { ConnectorLogger, DiscoveredStream, SourceDefinition } from '../sdk/types.js';

export interface PreparedSync {
  /** The sync with its source's default mapping applied (see withTargetDefaults). */
  sync: ResolvedSync;
  source: SourceDefinition;
  /** The connector's options, parsed by its own schema. */
  options: unknown;
  mapping: CompiledMapping;
}

/** Connector options are everything under `source:` but `type`. */
export function connectorOptions(sync: LoadedSync): Record<string, unknown> {
  const { type: _type, ...rest } = sync.source;
  return rest;
}

/** Collect every problem with one sync; an empty list means it is ready. */
export async function inspectSync(
  config: LoadedConfig,
  sync: LoadedSync,
): Promise<{ prepared?: PreparedSync; issues: ConfigIssue[] }> {
  const issues: ConfigIssue[] = [];
  let source: SourceDefinition | undefined;
  let options: unknown;
  try {
    const connector = await loadConnector(sync.source.type, { baseDir: sync.baseDir, plugins: config.plugins, kind: 'source' });
    if (connector.kind !== 'source') {
      throw new FerryError('FERRY_CONNECTOR_NOT_FOUND', `"${sync.source.type}" is a destination connector, not a source`);
    }
    source = connector;
    if (sync.partitions !== undefined && connector.partitionable !== true) {
      const at = sync.locate(['partitions']);
      issues.push({ ...at, path: formatPath([...sync.keyPath, 'partitions']), message: `the ${connector.name} source cannot read partitions; remove partitions: (csv, jsonl, postgres, mysql and sqlite sources can)` });
    }
    if (connector.changes === true) issues.push(...changeSourceIssues(sync, connector.name));
    const optionIssues = validateWith(connector.options, connectorOptions(sync), sync, ['source']);
    issues.push(...optionIssues);
    if (optionIssues.length === 0) options = connector.options.parse(connectorOptions(sync));
  } catch (error) {
    if (!(error instanceof FerryError)) throw error;
    const at = sync.locate(['source', 'type']);
    issues.push({ ...at, path: formatPath([...sync.keyPath, 'source', 'type']), message: error.message });
  }
  // Without a loaded source or valid options there are no defaults to know: the user's map is still checked.
  if ((!source || options === undefined) && sync.target.map === undefined) return { issues };
  const defaults = source && options !== undefined ? source.targetDefaults?.(options)?.[sync.target.type] : undefined;
  const resolution = withTargetDefaults(sync, defaults, source?.name ?? sync.source.type);
  if ('missing' in resolution) {
    const at = sync.locate(['target']);
    issues.push({ ...at, path: formatPath([...sync.keyPath, 'target', 'map']), message: resolution.missing });
    return { issues };
  }
  const resolved = resolution.sync;
  const compiled = compileMapping(resolved.target.map);
  let mapping: CompiledMapping | undefined;
  // A misspelt target field (`dispayName`) would otherwise vanish from every body.
  for (const e of checkTargetFields(resolved.target.type, resolved.target.map)) {
    const at = sync.locate(['target', 'map', ...e.path]);
    issues.push({ ...at, path: formatPath([...sync.keyPath, 'target', 'map', ...e.path]), message: e.message });
  }
  if ('errors' in compiled) {
    for (const e of compiled.errors) {
      const at = sync.locate(['target', 'map', ...e.path]);
      issues.push({ ...at, path: formatPath([...sync.keyPath, 'target', 'map', ...e.path]), message: e.message });
    }
  } else {
    mapping = compiled.mapping;
  }
  if (issues.length > 0 || !source || !mapping) return { issues };
  return { prepared: { sync: resolved, source, options, mapping }, issues };
}

/**
 * What a sync over a change source (SourceDefinition.changes) may not
 * declare: it reads changes, deletes included, from a position of its own.
 */
function changeSourceIssues(sync: LoadedSync, source: string): ConfigIssue[] {
  const refuse = (key: string, message: string): ConfigIssue => ({ ...sync.locate([key]), path: formatPath([...sync.keyPath, key]), message });
  const issues: ConfigIssue[] = [];
  if (sync.incremental !== undefined) issues.push(refuse('incremental', `the ${source} source reads changes from its own position: remove incremental:`));
  if (sync.deletes === 'mirror') issues.push(refuse('deletes', `the ${source} source sends deletes as they happen; deletes: mirror would treat each batch of changes as a full read: remove it`));
  if (sync.group !== undefined) issues.push(refuse('group', `the ${source} source cannot group records (a change would rebuild only part of a group): remove group:`));
  if (sync.partitions !== undefined) issues.push(refuse('partitions', `the ${source} source reads one stream of changes: remove partitions:`));
  return issues;
}

/** Prepare a sync or throw FERRY_CONFIG_INVALID listing every problem. */
export async function prepareSync(config: LoadedConfig, sync: LoadedSync): Promise<PreparedSync> {
  const { prepared, issues } = await inspectSync(config, sync);
  if (!prepared) {
    throw new FerryError('FERRY_CONFIG_INVALID', `sync "${sync.name}" is not runnable:\n${formatConfigIssues(issues)}`, {
      where: sync.file,
      details: { issues },
      hint: 'fix the lines above; `ferry check` lists every problem in the project',
    });
  }
  return prepared;
}

/** Find syncs by name, or all when none are named; unknown names are a usage error. */
export function selectSyncs(config: LoadedConfig, names: readonly string[]): LoadedSync[] {
  if (names.length === 0) return config.syncs;
  return names.map((name) => {
    const sync = config.syncs.find((s) => s.name === name);
    if (!sync) {
      const known = config.syncs.map((s) => s.name).join(', ') || '(none)';
      throw new FerryError('FERRY_USAGE', `no sync named "${name}" in ${config.file}`, { hint: `known syncs: ${known}` });
    }
    return sync;
  });
}

/** Ask the sync's source for its streams (fields, types, estimated sizes). */
export async function discoverStreams(prepared: PreparedSync, logger: ConnectorLogger): Promise<DiscoveredStream[]> {
  return prepared.source.discover({
    options: prepared.options,
    baseDir: prepared.sync.baseDir,
    syncName: prepared.sync.name,
    logger,
    signal: new AbortController().signal,
  });
}

/** The primary key the source declares for its stream (`keys()` of the source definition). */
export function primaryKeyOf(prepared: PreparedSync): string[] | undefined {
  const key = prepared.source.keys?.(prepared.options)?.primaryKey;
  return key && key.length > 0 ? [...key] : undefined;
}

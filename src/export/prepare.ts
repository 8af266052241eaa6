/**
 * Everything an export needs before it runs: its destination connector loaded
 * and its options validated, its filters checked against the list endpoint,
 * its incremental cursor mapped to a query bound. Problems come back together,
 * with file:line:col, so `ferry export` stops before reading anything.
 */
import { loadConnector } from '../config/connectors.js';
import { formatPath, validateWith } from '../config/index.js';
import type { ConfigIssue, LoadedConfig, LoadedExport } from '../config/index.js';
import { FerryError } from '../sdk/errors.js';
import type { DestinationDefinition } from '../sdk/types.js';
import { checkFilters } from './filters.js';
import type { CheckedFilters } from './filters.js';
import { RESOURCES } from './resources.js';
import type { ResourceSpec } from './resources.js';

export interface PreparedExport {
  exp: LoadedExport;
  spec: ResourceSpec;
  destination: DestinationDefinition;
  /** The destination's options, parsed by its own schema. */
  options: unknown;
  filters: CheckedFilters;
  /** With `incremental:`: the time field and the query parameter that bounds it. */
  incremental?: { field: string; param: string };
  /**
   * With `incremental: { changes: scan }`: each run scans the list and writes
   * what is new or changed by fingerprint. `bounded`: the cursor is an
   * activity time (deals' and accounts' `lastActivityDate`), so the scan asks
   * from the watermark; otherwise it lists everything.
   */
  changes?: { bounded: boolean };
}

/** Destination options are everything under `destination:` but `type`. */
export function destinationOptions(exp: LoadedExport): Record<string, unknown> {
  const { type: _type, ...rest } = exp.destination;
  return rest;
}

export async function inspectExport(config: LoadedConfig, exp: LoadedExport): Promise<{ prepared?: PreparedExport; issues: ConfigIssue[] }> {
  const issues: ConfigIssue[] = [];
  const issue = (path: (string | number)[], message: string, atKey = false) =>
    issues.push({ ...exp.locate(path, { atKey }), path: formatPath([...exp.keyPath, ...path]), message });

  let destination: DestinationDefinition | undefined;
  let options: unknown;
  try {
    const connector = await loadConnector(exp.destination.type, { baseDir: exp.baseDir, plugins: config.plugins, kind: 'destination' });
    if (connector.kind !== 'destination') {
      throw new FerryError('FERRY_CONNECTOR_NOT_FOUND', `"${exp.destination.type}" is a source connector, not a destination`);
    }
    destination = connector;
    const optionIssues = validateWith(connector.options, destinationOptions(exp), exp, ['destination']);
    issues.push(...optionIssues);
    if (optionIssues.length === 0) options = connector.options.parse(destinationOptions(exp));
  } catch (error) {
    if (!(error instanceof FerryError)) throw error;
    issue(['destination', 'type'], error.hint ? `${error.message} (hint: ${error.hint})` : error.message);
  }

  const spec = RESOURCES[exp.resource];
  const checked = checkFilters(spec, exp.filters);
  for (const problem of checked.issues) {
    issue(problem.key === undefined ? ['filters'] : ['filters', problem.key], problem.message, problem.key !== undefined);
  }

  let incremental: PreparedExport['incremental'];
  let changes: PreparedExport['changes'];
  if (exp.incremental) {
    const field = exp.incremental.cursor;
    const param = field === undefined ? undefined : spec.cursors[field];
    const supported = Object.keys(spec.cursors);
    if (field === undefined) {
      // No watermark: every run lists everything and the fingerprints tell what changed.
      if (exp.incremental.changes === 'scan') changes = { bounded: false };
      else
        issue(
          ['incremental', 'cursor'],
          supported.length === 0
            ? `${spec.resource} have no time field for changes: new to read past; use changes: scan (the default), which lists them in full each run`
            : `changes: new needs a cursor, the time field past which a record is new: ${supported.join(' or ')}`,
        );
    } else if (param === undefined) {
      issue(
        ['incremental', 'cursor'],
        supported.length === 0
          ? `${spec.resource} cannot be exported by a cursor: its list endpoint has no time bound (leave cursor: out to scan the whole list for changes each run)`
          : `${spec.resource} can be exported incrementally by ${supported.join(' or ')}, not by "${field}"`,
      );
    } else {
      incremental = { field, param };
      if (exp.incremental.changes === 'scan') changes = { bounded: spec.activityCursors.includes(field) };
    }
  }

  if (issues.length > 0 || !destination) return { issues };
  return { prepared: { exp, spec, destination, options, filters: checked.filters, ...(incremental ? { incremental } : {}), ...(changes ? { changes } : {}) }, issues };
}

/** Find exports by name, or all when none are named; unknown names are a usage error. */
export function selectExports(config: LoadedConfig, names: readonly string[]): LoadedExport[] {
  if (names.length === 0) return config.exports;
  return [...new Set(names)].map((name) => {
    const exp = config.exports.find((e) => e.name === name);
    if (!exp) {
      const known = config.exports.map((e) => e.name).join(', ') || '(none)';
      throw new FerryError('FERRY_USAGE', `no export named "${name}" in ${config.file}`, { hint: `known exports: ${known}` });
    }
    return exp;
  });
}

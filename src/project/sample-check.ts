/**
 * `ferry check`'s look at the data: the first records a sync's source reads,
 * compared with what the sync names. A `primaryKey` or a mapping's bare
 * column that the source does not have passes every check of the config
 * alone, then costs a whole run (every record dead-lettered, or no record
 * keyed); read a few records, as `ferry preview` does, and name the column
 * now (issue 46). Change sources (a replication slot) are not sampled: a
 * read there has effects.
 */
import type { Logger } from 'pino';
import { bareColumns } from '../mapping/bare-columns.js';
import { primaryKeyOf } from '../pipeline/prepare.js';
import type { PreparedSync } from '../pipeline/prepare.js';

/** Enough records to see the columns of a file or table; few enough to be instant. */
export const SAMPLE_SIZE = 50;

export interface SampleFinding {
  /** `error`: the column is in no sampled record and the records share one set of columns (a table, a CSV header). */
  severity: 'error' | 'warning';
  message: string;
}

export interface SampleResult {
  sampled: number;
  findings: SampleFinding[];
}

/** The columns the sampled records have: their union, and whether every record had the same ones. */
interface SampledColumns {
  count: number;
  union: Set<string>;
  uniform: boolean;
}

async function readColumns(prepared: PreparedSync, logger: Logger, signal: AbortSignal): Promise<SampledColumns> {
  const { sync, source, options } = prepared;
  const primaryKey = primaryKeyOf(prepared);
  const records = source.read({ options, baseDir: sync.baseDir, syncName: sync.name, logger, signal, ...(primaryKey ? { primaryKey } : {}) });
  const union = new Set<string>();
  let first: string | undefined;
  let uniform = true;
  let count = 0;
  for await (const record of records) {
    const data: unknown = record.data;
    const keys = data !== null && typeof data === 'object' && !Array.isArray(data) ? Object.keys(data) : [];
    for (const key of keys) union.add(key);
    const shape = [...keys].sort().join('\u0000');
    if (first === undefined) first = shape;
    else if (shape !== first) uniform = false;
    if (++count >= SAMPLE_SIZE) break;
  }
  return { count, union, uniform };
}

function listed(columns: Set<string>): string {
  const names = [...columns];
  return names.slice(0, 12).join(', ') + (names.length > 12 ? ', …' : '');
}

/** Sample the source and report what the sync names that the records lack. */
export async function sampleSource(prepared: PreparedSync, logger: Logger, signal: AbortSignal): Promise<SampleResult | undefined> {
  if (prepared.source.changes === true) return undefined;
  const { count, union, uniform } = await readColumns(prepared, logger, signal);
  if (count === 0) return { sampled: 0, findings: [] };
  const findings: SampleFinding[] = [];
  const severity = uniform ? 'error' : 'warning';
  const where = uniform ? `the source's columns are: ${listed(union)}` : `the first ${count} records have: ${listed(union)}`;
  const key = primaryKeyOf(prepared) ?? [];
  const missingKey = key.filter((column) => !union.has(column));
  if (missingKey.length > 0) {
    findings.push({
      severity: 'error',
      message: `primaryKey ${missingKey.map((c) => `"${c}"`).join(', ')} is in none of the first ${count} records (${where}); fix the name (ferry discover ${prepared.sync.name} lists the columns)`,
    });
  }
  // A group's map reads the group, not one record's columns.
  if (!prepared.sync.group) {
    for (const { path, column } of bareColumns(prepared.sync.target.map)) {
      if (union.has(column)) continue;
      findings.push({
        severity,
        message: `map entry \`${path}\` reads source column \`${column}\`, which ${uniform ? 'the source does not have' : `none of the first ${count} records has`} (${where})`,
      });
    }
  }
  return { sampled: count, findings };
}

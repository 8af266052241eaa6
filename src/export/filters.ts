/**
 * An export's `filters:`: checked against the list endpoint's own query
 * schema before anything runs, and names (`source: crm`, `objectType: deal`)
 * resolved to the ids the service filters by.
 */
import { FerryError } from '../sdk/errors.js';
import type { ExportService, ResourceSpec } from './resources.js';

export type FilterValue = string | number | boolean;

export interface FilterIssue {
  /** The filter's key, or undefined for the filters as a whole. */
  key?: string;
  message: string;
}

export interface CheckedFilters {
  /** Query parameters as written, for the list endpoint. */
  query: Record<string, FilterValue>;
  /** Names to resolve to ids against the service. */
  names: { source?: string; objectType?: string };
}

/** Parameters ferry sets itself on every list request. */
const MANAGED = new Set(['limit', 'cursor']);
const NAME_TO_ID = { source: 'sourceId', objectType: 'objectTypeId' } as const;

export function checkFilters(spec: ResourceSpec, filters: Readonly<Record<string, FilterValue>> | undefined): { filters: CheckedFilters; issues: FilterIssue[] } {
  const issues: FilterIssue[] = [];
  const checked: CheckedFilters = { query: {}, names: {} };
  const shape = spec.query.shape as Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: { message: string }[] } } }>;
  for (const [key, value] of Object.entries(filters ?? {})) {
    if (MANAGED.has(key)) {
      issues.push({ key, message: `${key} is set by ferry on every request; remove it` });
      continue;
    }
    if (key === 'source' || key === 'objectType') {
      if (!spec.nameFilters.includes(key)) {
        issues.push({ key, message: `${spec.resource} cannot be filtered by ${key}` });
      } else if (typeof value !== 'string' || value === '') {
        issues.push({ key, message: `${key} must be the name of a ${key === 'source' ? 'source' : 'object type'}` });
      } else if (filters?.[NAME_TO_ID[key]] !== undefined) {
        issues.push({ key, message: `give either ${key} (a name) or ${NAME_TO_ID[key]}, not both` });
      } else {
        checked.names[key] = value;
      }
      continue;
    }
    const field = shape[key];
    if (!field) {
      const known = [...Object.keys(shape).filter((name) => !MANAGED.has(name)), ...spec.nameFilters].sort();
      issues.push({ key, message: `${spec.resource} has no filter "${key}" (filters: ${known.join(', ')})` });
      continue;
    }
    const parsed = field.safeParse(value);
    if (!parsed.success) {
      issues.push({ key, message: parsed.error?.issues[0]?.message ?? 'invalid value' });
      continue;
    }
    checked.query[key] = value;
  }
  return { filters: checked, issues };
}

/**
 * The query with names replaced by ids. A name the service does not know is a
 * configuration error: exporting nothing would hide a typo.
 */
export async function resolveFilters(service: ExportService, checked: CheckedFilters, exportName: string): Promise<Record<string, FilterValue>> {
  const query: Record<string, FilterValue> = { ...checked.query };
  const where = `export ${exportName}`;
  if (checked.names.source !== undefined) {
    const name = checked.names.source;
    const { sources } = await service.listSources({ name });
    const source = sources.find((s) => s.name === name) ?? sources.find((s) => s.name.toLowerCase() === name.toLowerCase());
    if (!source) {
      throw new FerryError('FERRY_CONFIG_INVALID', `the service has no source named "${name}"`, {
        where,
        hint: 'sources are created by the syncs that push to them: run that sync first, or check filters.source',
      });
    }
    query.sourceId = source.id;
  }
  if (checked.names.objectType !== undefined) {
    const name = checked.names.objectType;
    const sourceId = typeof query.sourceId === 'string' ? query.sourceId : undefined;
    const { objectTypes } = await service.listObjectTypes(sourceId === undefined ? {} : { sourceId });
    const matches = objectTypes.filter((type) => type.name === name);
    if (matches.length === 0) {
      throw new FerryError('FERRY_CONFIG_INVALID', `the service has no object type named "${name}"${checked.names.source ? ` under source "${checked.names.source}"` : ''}`, {
        where,
        hint: 'object types are created by the row syncs that push to them: run that sync first, or check filters.objectType',
      });
    }
    if (matches.length > 1) {
      throw new FerryError('FERRY_CONFIG_INVALID', `${matches.length} object types are named "${name}" (under different sources)`, {
        where,
        hint: 'add filters.source to say which one',
      });
    }
    query.objectTypeId = matches[0]!.id;
  }
  return query;
}

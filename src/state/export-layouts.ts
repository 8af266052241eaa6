/**
 * Where both stores keep the layout an export writes in (its naming and
 * metadata conventions, docs/exports.md#analyst-conventions): one row of
 * their `meta` table per export, keyed `export-layout <export:name>`, the
 * value JSON. Recorded at an export's first run so that its destination keeps
 * the shape it was created with. No migration: `meta` is there in every
 * schema version, and an older ferry ignores keys it does not know.
 */
import type { ExportConventions } from '../sdk/types.js';

/** The small port: read and record an export's layout. */
export interface ExportLayoutStore {
  /** The layout recorded for the export (its state key, `export:<name>`), or undefined. */
  exportLayout(exportKey: string): Promise<ExportConventions | undefined>;
  /** Record the layout (replacing one recorded before). */
  recordExportLayout(exportKey: string, layout: ExportConventions): Promise<void>;
}

export const EXPORT_LAYOUT_KEY = 'export-layout ';

/** The `meta` key of an export's layout. */
export function exportLayoutKey(exportKey: string): string {
  return EXPORT_LAYOUT_KEY + exportKey;
}

/** A stored value, or undefined for one that does not parse (written by a later ferry, or damaged). */
export function parseExportLayout(text: string | undefined): ExportConventions | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<ExportConventions>;
    if ((value.naming !== 'snake_case' && value.naming !== 'api') || typeof value.metadata !== 'boolean') return undefined;
    // `nested` came with a later layout: a layout recorded before it has none (JSON nested values).
    const nested = value.nested === 'struct' || value.nested === 'json' ? { nested: value.nested } : {};
    return { naming: value.naming, metadata: value.metadata, ...nested };
  } catch {
    return undefined;
  }
}

/** Expanding `include:` entries (plain paths or globs) relative to the including file. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';

export type IncludeResult =
  | { kind: 'files'; files: string[] }
  /** A glob that matched nothing: worth a warning, not an error. */
  | { kind: 'empty' }
  /** A plain path that does not exist (or is not a file): an error. */
  | { kind: 'missing'; file: string };

export async function expandInclude(pattern: string, baseDir: string): Promise<IncludeResult> {
  if (!isDynamicPattern(pattern)) {
    const file = path.resolve(baseDir, pattern);
    const info = await stat(file).catch(() => undefined);
    return info?.isFile() ? { kind: 'files', files: [file] } : { kind: 'missing', file };
  }
  const files = await glob(pattern, { cwd: baseDir, absolute: true, onlyFiles: true, expandDirectories: false });
  // Sorted, so syncs come in the same order on every machine.
  const sorted = files.map((file) => path.resolve(file)).sort();
  return sorted.length === 0 ? { kind: 'empty' } : { kind: 'files', files: sorted };
}

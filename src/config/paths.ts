/**
 * Relative paths in a config file mean "next to this file", never "wherever
 * ferry was started from", so a scheduled run behaves like a run by hand.
 */
import path from 'node:path';

/** `sqlite:state/ferry.db` → `sqlite:/abs/dir/state/ferry.db`; other URLs are returned as they are. */
export function resolveStateUrl(url: string, baseDir: string): string {
  if (!url.startsWith('sqlite:')) return url;
  const target = url.slice('sqlite:'.length);
  if (target === ':memory:' || target === '') return url;
  return `sqlite:${path.resolve(baseDir, target)}`;
}

/** A file path, unless it is SQLite's `:memory:`. */
export function resolveDbPath(db: string, baseDir: string): string {
  return db === ':memory:' ? db : path.resolve(baseDir, db);
}

/** Local plugin paths (`./x`, `../x`, `/x`) become absolute; package names stay as written. */
export function resolvePluginSpecifier(specifier: string, baseDir: string): string {
  const local = specifier.startsWith('./') || specifier.startsWith('../') || path.isAbsolute(specifier);
  return local ? path.resolve(baseDir, specifier) : specifier;
}

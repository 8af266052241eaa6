/**
 * Parses a `state.url`. The config loader has already resolved relative paths
 * against the YAML file's directory, so a relative path here is a bug upstream
 * and is refused rather than silently resolved against the current directory.
 */
import { isAbsolute } from 'node:path';
import { FerryError } from '../sdk/errors.js';
import { redactUrl } from '../sdk/redact.js';

export type StateLocation = { kind: 'sqlite'; path: string } | { kind: 'sqlite-memory' } | { kind: 'postgres'; url: string };

const MEMORY = ':memory:';

export function parseStateUrl(url: string): StateLocation {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { kind: 'postgres', url };
  if (!url.startsWith('sqlite:')) {
    throw new FerryError('FERRY_STATE_ERROR', `unsupported state url "${redactUrl(url)}"`, {
      hint: 'use sqlite:/absolute/path/ferry.db, sqlite::memory: or postgres://…',
    });
  }
  let rest = url.slice('sqlite:'.length);
  // Accept the URL-ish spelling sqlite:///abs/path as well as sqlite:/abs/path.
  if (rest.startsWith('//')) rest = rest.slice(2);
  if (rest === MEMORY) return { kind: 'sqlite-memory' };
  if (rest === '') {
    throw new FerryError('FERRY_STATE_ERROR', 'state url "sqlite:" names no file', { hint: 'use sqlite:/absolute/path/ferry.db' });
  }
  if (!isAbsolute(rest)) {
    throw new FerryError('FERRY_STATE_ERROR', `state path "${rest}" is not absolute`, {
      hint: 'relative state paths resolve against the YAML file that declares them; pass an absolute path when opening the store directly',
    });
  }
  return { kind: 'sqlite', path: rest };
}


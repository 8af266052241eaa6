/** Short, safe renderings of values for "found …" in error messages. */
import { REDACTED, isSecretPath, redact } from '../sdk/redact.js';

const MAX_STRING = 40;
const MAX_KEYS = 4;

/**
 * A one-glance rendering of a value: strings quoted and cut short, lists and
 * mappings summarized. `path` is where the value sits, so secrets are hidden.
 */
export function renderFound(value: unknown, path: readonly PropertyKey[] = []): string {
  if (value === undefined) return 'nothing';
  if (isSecretPath(path) && value !== null && value !== '') return REDACTED;
  if (typeof value === 'string') {
    const safe = redact(value);
    return JSON.stringify(safe.length > MAX_STRING ? `${safe.slice(0, MAX_STRING - 1)}…` : safe);
  }
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    if (keys.length === 0) return 'an empty mapping';
    const shown = keys.slice(0, MAX_KEYS).join(', ');
    return `a mapping {${shown}${keys.length > MAX_KEYS ? ', …' : ''}}`;
  }
  return String(value);
}

/** The words used for zod's type names in messages. */
export function describeType(expected: string): string {
  switch (expected) {
    case 'object':
    case 'record':
      return 'a mapping';
    case 'array':
    case 'tuple':
      return 'a list';
    case 'int':
      return 'an integer';
    case 'undefined':
    case 'never':
      return 'nothing';
    default:
      return `a ${expected}`;
  }
}

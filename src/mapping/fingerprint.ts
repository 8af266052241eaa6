/**
 * The fingerprint of a request body decides whether a record is sent again:
 * equal bodies must hash equal whatever their key order, and any change to a
 * value must change the hash.
 */
import { hash } from 'node:crypto';

/**
 * Quoted keys, reused: field names repeat on every record, and quoting them
 * again each time was a visible share of a run's CPU. Bounded, so a source
 * whose keys never repeat cannot grow it without end.
 */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 10_000;

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * The keys in the default sort order (UTF-16 code units), in place. A body's
 * objects have a handful of keys; Array.prototype.sort allocated work space
 * on every call, which made it the largest allocation of a push.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 24) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** JSON with object keys sorted at every level; arrays keep their order. Undefined members are left out, as JSON does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string') return JSON.stringify(value);
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = sortKeys(Object.keys(record));
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined || typeof item === 'function') continue;
    out += (first ? '' : ',') + quoteKey(key) + ':' + canonicalJson(item);
    first = false;
  }
  return `${out}}`;
}

/** sha256 (hex) of the body's canonical JSON; one-shot `hash` (no Hash object per record), same digest. */
export function fingerprint(body: unknown): string {
  return fingerprintOfJson(canonicalJson(body));
}

/** {@link fingerprint} of a body whose canonical JSON is already at hand (it is also the text sent). */
export function fingerprintOfJson(json: string): string {
  return hash('sha256', json, 'hex');
}

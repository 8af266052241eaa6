/**
 * Select part of a parsed record: a JSON pointer (`/meeting_transcripts`,
 * RFC 6901) or a dot path (`call.segments`, `items.0.id`).
 */

export function parsePointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  if (pointer.startsWith('/')) {
    return pointer
      .slice(1)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return pointer.split('.');
}

/** The value at `path`, or undefined when any step is missing. */
export function select(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const token of path) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (current !== null && typeof current === 'object') {
      current = Object.hasOwn(current, token) ? (current as Record<string, unknown>)[token] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

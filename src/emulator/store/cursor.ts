/**
 * Opaque list cursors: base64url of the last item's sort key and id, tagged
 * with the list they belong to so a cursor from another list is refused.
 */

export interface CursorKey {
  sortMs: number;
  id: string;
}

export class InvalidCursorError extends Error {
  constructor() {
    super('invalid cursor: pass the nextCursor of a previous response of the same list unchanged');
    this.name = 'InvalidCursorError';
  }
}

export function encodeCursor(list: string, key: CursorKey): string {
  return Buffer.from(JSON.stringify([list, key.sortMs, key.id]), 'utf8').toString('base64url');
}

/** Decode a cursor of `list`; throws InvalidCursorError for anything else. */
export function decodeCursor(list: string, cursor: string): CursorKey {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursorError();
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== list ||
    typeof parsed[1] !== 'number' ||
    !Number.isFinite(parsed[1]) ||
    typeof parsed[2] !== 'string'
  ) {
    throw new InvalidCursorError();
  }
  return { sortMs: parsed[1], id: parsed[2] };
}

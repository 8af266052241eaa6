/**
 * Opaque list cursors: base64url of the last item's sort key and id, tagged
 * with the list they belong to so a cursor from another list is refused.
 */

export interface CursorKey {
  sortMs: number;
  id: string;
}

/** A cursor that is not one of `list`'s (a record kind such as `conversation`; its path is the plural). */
export class InvalidCursorError extends Error {
  constructor(list: string) {
    super(
      `invalid cursor: not a nextCursor of GET /v1/${list}s. Pass the pagination.nextCursor of a previous ` +
        `GET /v1/${list}s response unchanged (cursors are opaque), or leave cursor out to start from the first page`,
    );
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
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursorError(list);
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError(list);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== list ||
    typeof parsed[1] !== 'number' ||
    !Number.isFinite(parsed[1]) ||
    typeof parsed[2] !== 'string'
  ) {
    throw new InvalidCursorError(list);
  }
  return { sortMs: parsed[1], id: parsed[2] };
}

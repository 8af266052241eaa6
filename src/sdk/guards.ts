/** Small checks on values of unknown shape (parsed JSON, YAML, thrown things), written once. */

/** True for a plain object (`{…}` or `Object.create(null)`): not null, an array, a Date, a Buffer or a class instance. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The message of anything thrown: an Error's message (for an AggregateError,
 * such as a connection refused on every address, its first error's; for an
 * Error without a message, its code or name), else the value as text.
 */
export function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  if (error instanceof Error) return error.message || String((error as { code?: unknown }).code ?? error.name);
  return String(error);
}

/**
 * The `code` of anything thrown, as text (`ECONNREFUSED`, `SQLITE_BUSY`,
 * PostgreSQL's SQLSTATE such as `42P01`), or undefined when it has none.
 */
export function codeOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || error.code === undefined || error.code === null) return undefined;
  return String(error.code);
}

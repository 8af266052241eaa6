/**
 * Scrubbing secrets from text that may end up in logs or error output. The
 * client never puts the API key into a message on purpose; this guards what
 * it does not write itself (a server echoing a header, an undici message).
 */

export const REDACTED = '[redacted]';

/** Replace every occurrence of each secret, and any Bearer token and URL credentials, with a marker. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Short strings would blank out ordinary words; real keys are long.
    if (secret.length >= 6) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(/(Bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`)
    .replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, `$1${REDACTED}@`);
}

/** A deep copy of a JSON-like value with every string redacted. */
export function redactValue(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, secrets, depth + 1);
  return out;
}

/**
 * A stand-in for a low-level error that keeps its name, code and (redacted)
 * message but nothing else, so attaching it as `cause` cannot leak request
 * options an HTTP library may hang on its errors.
 */
export function sanitizeError(error: unknown, secrets: readonly string[] = [], depth = 0): Error {
  if (!(error instanceof Error)) return new Error(redact(String(error), secrets));
  const copy = new Error(redact(error.message, secrets));
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  if (error.cause !== undefined && depth < 4) copy.cause = sanitizeError(error.cause, secrets, depth + 1);
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

/**
 * Keeping secrets out of everything ferry prints or stores: one marker, one
 * set of rules, one process-wide registry of secret values.
 *
 * The config loader registers the API key, passwords and the values of
 * `${VAR}` references ({@link registerSecret}); logs, error output, preview
 * output and state writes pass their text through {@link redact}. A connector
 * that learns secrets of its own (an OAuth token, a header) keeps them in a
 * {@link Redactor}, which applies its values on top of the registry.
 */
import { stacklessError } from './errors.js';

/** What every hidden secret is replaced by. */
export const REDACTED = '***';

/** Names (keys, query parameters, headers) whose value is a credential. */
const SECRET_NAME = /api[-_]?key|^key$|token|secret|passw(?:or)?d|pwd|signature|^sig$|(?:^|[-_])auth(?:[-_]|$)|^authorization$|passphrase|credential|session|cookie|private[-_]?key/i;

/** Shorter values would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;

const registry = new Set<string>();
/** Every registered value and its encoded spellings, longest first so a longer secret is replaced whole. */
let needles: string[] = [];
/** Bumped whenever the registry changes: what {@link needlesWith} remembers is good for one version. */
let registryVersion = 0;
/** The needles of the last `extra` secrets not all registered, with the registry version they were made for. */
let lastExtra: { key: string; version: number; needles: string[] } | undefined;

/** True when a key's, header's or query parameter's value should never be shown (apiKey, password, accessToken, clientSecret…). */
export function isSecretName(name: PropertyKey | undefined): boolean {
  return typeof name === 'string' && SECRET_NAME.test(name);
}

/** True when any key along a path is secret-looking (a nested `auth: { … }` hides all below it). */
export function isSecretPath(segments: readonly PropertyKey[]): boolean {
  return segments.some((segment) => isSecretName(segment));
}

/**
 * Remember a secret value for the rest of the process: every later
 * {@link redact} replaces it, raw, URL-encoded or JSON-escaped.
 * Values shorter than `minLength` (default 4) are ignored.
 */
export function registerSecret(value: string | undefined, minLength = MIN_SECRET_LENGTH): void {
  if (value === undefined || value.length < Math.max(minLength, MIN_SECRET_LENGTH) || registry.has(value)) return;
  registry.add(value);
  registryVersion++;
  needles = spellingsOf([...registry]);
}

/** Forget every registered secret (tests that load several projects in one process). */
export function clearSecrets(): void {
  registry.clear();
  registryVersion++;
  needles = [];
}

/**
 * A text with every registered secret and every `extra` secret (raw,
 * URL-encoded or JSON-escaped) replaced by {@link REDACTED}, and nothing else
 * touched: for record content, where a pattern would change data.
 */
export function redactSecrets(text: string, extra: readonly (string | undefined)[] = []): string {
  let out = text;
  const given = extra.filter((s): s is string => s !== undefined && s.length >= MIN_SECRET_LENGTH);
  for (const needle of needlesWith(given)) {
    if (out.includes(needle)) out = out.split(needle).join(REDACTED);
  }
  return out;
}

/**
 * The registry's needles with those of `given` added. A client passes its API
 * key with every call, once per string of every error body it redacts, and the
 * key is usually registered already; spelling and sorting them all again for
 * each string was most of what redacting a 429's body cost.
 */
function needlesWith(given: readonly string[]): string[] {
  if (given.every((value) => registry.has(value))) return needles;
  const key = given.join('\u0000');
  if (lastExtra?.key === key && lastExtra.version === registryVersion) return lastExtra.needles;
  const made = spellingsOf([...given, ...registry]);
  lastExtra = { key, version: registryVersion, needles: made };
  return made;
}

/**
 * A message with every registered secret, every `extra` secret, Bearer/Basic
 * credentials, URL passwords and secret-named query parameters replaced by
 * {@link REDACTED}: for logs, errors and anything printed.
 */
export function redact(text: string, extra: readonly (string | undefined)[] = []): string {
  return redactSecrets(text, extra)
    .replace(/\b(Bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`)
    .replace(/\b(Basic\s+)[A-Za-z0-9+/]{8,}={0,2}/g, `$1${REDACTED}`)
    .replace(/([a-z][a-z0-9+.-]{0,31}:\/\/[^/\s:@"']*):[^/\s@"']*@/gi, `$1:${REDACTED}@`)
    .replace(/([?&])([^=&\s#"']+)=([^&\s#"']*)/g, (match, sep: string, name: string) =>
      isSecretName(name) ? `${sep}${name}=${REDACTED}` : match,
    );
}

/**
 * A deep copy of a JSON-like value with every string (and key) passed through
 * {@link redact}, or with `{ patterns: false }` through {@link redactSecrets}.
 */
export function redactValue(value: unknown, extra: readonly (string | undefined)[] = [], options: { patterns?: boolean } = {}, depth = 0): unknown {
  const text = options.patterns === false ? redactSecrets : redact;
  if (typeof value === 'string') return text(value, extra);
  if (depth > 20 || value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, extra, options, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[text(k, extra)] = redactValue(v, extra, options, depth + 1);
  return out;
}

/**
 * A stand-in for a low-level error that keeps its name, code and redacted
 * message (and cause) but nothing else, so attaching it as `cause` cannot
 * leak request options a library may hang on its errors.
 */
export function redactError(error: unknown, extra: readonly (string | undefined)[] = [], depth = 0): Error {
  if (!(error instanceof Error)) return stacklessError(redact(String(error), extra));
  const copy = stacklessError(redact(error.message, extra));
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code });
  if (error.cause !== undefined && depth < 4) copy.cause = redactError(error.cause, extra, depth + 1);
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

/**
 * One URL made safe to show: its password and every query parameter named
 * like a credential (or listed in `secretParams`) become {@link REDACTED}.
 * `postgres://user:pw@host/db` → `postgres://user:***@host/db`.
 */
export function redactUrl(url: string | URL, secretParams: ReadonlySet<string> = new Set()): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return redact(String(url));
  }
  if (parsed.password) parsed.password = REDACTED;
  for (const name of [...new Set(parsed.searchParams.keys())]) {
    if (isSecretName(name) || secretParams.has(name.toLowerCase())) parsed.searchParams.set(name, REDACTED);
  }
  // URL escapes "*" in search params and userinfo; keep the marker readable.
  return redact(parsed.toString().replaceAll('%2A%2A%2A', REDACTED));
}

/** The password inside a URL (userinfo or `password=` parameter), decoded; undefined when none. */
export function passwordOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const fromQuery = parsed.searchParams.get('password') ?? undefined;
    const password = parsed.password !== '' ? safeDecode(parsed.password) : fromQuery;
    return password === undefined || password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/**
 * Secrets one connector learns as it works (a token from an OAuth exchange,
 * an API key header), applied on top of the process registry.
 */
export class Redactor {
  private readonly values = new Set<string>();
  private readonly params = new Set<string>();

  /** Remember a secret value (values shorter than 4 characters are ignored). */
  addValue(value: string | undefined): void {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH) this.values.add(value);
  }

  /** A query parameter that is secret whatever its name (an API key's `name`). */
  addParam(name: string): void {
    this.params.add(name.toLowerCase());
  }

  /** A header whose value is secret when its name looks like a credential. */
  addHeader(name: string, value: string): void {
    if (isSecretName(name)) this.addValue(value);
  }

  /** A URL with its password and secret parameters hidden. */
  url(url: string | URL): string {
    return this.text(redactUrl(url, this.params));
  }

  /** A text with every known secret hidden. */
  text(text: string): string {
    return redact(text, [...this.values]);
  }
}

function spellingsOf(values: readonly string[]): string[] {
  const out = new Set<string>();
  for (const value of values) {
    out.add(value);
    out.add(encodeURIComponent(value));
    out.add(JSON.stringify(value).slice(1, -1));
  }
  return [...out].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Pure helpers that turn an endpoint call into the pieces of an HTTP request:
 * the path with its parameters, the query string, and the body bytes.
 */
import { FerryError } from '../sdk/errors.js';
import { BODY_LIMIT_BYTES } from './schemas/common.js';

/**
 * Parse a base URL and split off its path prefix (no trailing slash, `''` at
 * the root), so `prefix + '/v1/...'` is right with or without a trailing slash.
 */
export function normaliseBaseUrl(baseUrl: string): { url: URL; prefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new FerryError('FERRY_CONFIG_INVALID', `service.baseUrl is not a URL: ${JSON.stringify(baseUrl)}`, {
      cause,
      hint: 'use an absolute http(s) URL such as https://api.example.com',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FerryError('FERRY_CONFIG_INVALID', `service.baseUrl must be http or https, found ${url.protocol}`);
  }
  url.search = '';
  url.hash = '';
  // Credentials in the URL would travel with every request and show up in messages.
  url.username = '';
  url.password = '';
  return { url, prefix: url.pathname.replace(/\/+$/, '') };
}

/** Fill `{name}` placeholders with URL-encoded values; a missing value is a programming error. */
export function fillPath(template: string, params: Readonly<Record<string, string>> = {}, endpoint = template): string {
  // Most paths (every record push) have no placeholder: no regex pass for them.
  if (!template.includes('{')) return template;
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') {
      throw new FerryError('FERRY_USAGE', `${endpoint}: path parameter "${name}" is missing`);
    }
    return encodeURIComponent(value);
  });
}

/**
 * `?a=1&b=x` from the defined values only, in the caller's key order; empty
 * string when none. `undefined` and `null` leave a parameter out; dates are
 * sent as ISO 8601.
 */
export function buildQuery(query: object | undefined, endpoint = 'request'): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Date) params.append(key, value.toISOString());
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      params.append(key, String(value));
    } else {
      throw new FerryError('FERRY_USAGE', `${endpoint}: query parameter "${key}" must be a string, number, boolean or date`);
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * JSON bytes of a request body, refused before sending when over the
 * service's 10 MB limit (it would answer 413 after the whole upload).
 */
export function serialiseBody(body: unknown, endpoint: string, limit: number = BODY_LIMIT_BYTES): Buffer {
  return jsonBytes(JSON.stringify(body), endpoint, limit);
}

/** {@link serialiseBody} of a body whose JSON text the caller already has. */
export function jsonBytes(json: string, endpoint: string, limit: number = BODY_LIMIT_BYTES): Buffer {
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length > limit) {
    throw new FerryError(
      'FERRY_BODY_TOO_LARGE',
      `${endpoint}: request body is ${bytes.length} bytes, over the service limit of ${limit} bytes; it was not sent`,
      {
        details: { endpoint, bytes: bytes.length, limit },
        hint: 'shorten the record (transcript, message body or document content) or split it',
      },
    );
  }
  return bytes;
}

/** The path (and query) of a `Location` header, when it points at the service itself. */
export function resolveLocation(location: string, base: URL, prefix: string): string | undefined {
  let target: URL;
  try {
    target = new URL(location, `${base.origin}/`);
  } catch {
    return undefined;
  }
  // Never follow a redirect to another origin: the request carries the API key.
  if (target.origin !== base.origin) return undefined;
  const path = prefix === '' || target.pathname.startsWith(`${prefix}/`) ? target.pathname : `${prefix}${target.pathname}`;
  return `${path}${target.search}`;
}

/**
 * Keeping secrets out of configuration errors: values under secret-looking
 * keys are never shown, and credentials inside URLs are masked.
 */

const SECRET_KEY = /(api[-_]?key|password|passwd|pwd|token|secret|credential|private[-_]?key|^auth(orization)?$)/i;

/** True when a key's value should never be printed (apiKey, password, accessToken, clientSecret…). */
export function isSecretKey(key: PropertyKey | undefined): boolean {
  return typeof key === 'string' && SECRET_KEY.test(key);
}

/** True when any key along a path is secret-looking (a nested `auth: { … }` hides all below it). */
export function isSecretPath(segments: readonly PropertyKey[]): boolean {
  return segments.some((segment) => isSecretKey(segment));
}

/** `postgres://user:pw@host/db` → `postgres://user:****@host/db`. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]+):[^/\s@]*@/gi, '$1:****@');
}

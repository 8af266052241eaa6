/**
 * Database URLs carry passwords; nothing a connector logs or throws may show
 * one. Driver messages are scrubbed too, in case a driver echoes its config.
 */

/** `postgres://user:secret@host/db` → `postgres://user:****@host/db`; also masks `password=` query parameters. */
export function redactUrl(url: string): string {
  return url
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^/\s@]*@/gi, '$1:****@')
    .replace(/([?&](?:password|passwd|pwd|sslpassword)=)[^&\s]*/gi, '$1****');
}

/** The password inside a URL, if any (decoded), so it can be scrubbed from driver messages. */
export function passwordOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const fromQuery = parsed.searchParams.get('password') ?? undefined;
    const password = parsed.password !== '' ? decodeURIComponent(parsed.password) : fromQuery;
    return password === undefined || password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/** Remove URL credentials and every occurrence of the given secrets from a text. */
export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = redactUrl(text);
  for (const secret of secrets) {
    if (secret && secret.length > 0) out = out.split(secret).join('****');
  }
  return out;
}

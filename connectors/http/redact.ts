/**
 * Keep secrets out of logs, errors and record origins: query parameters
 * named like credentials, URL passwords, and every configured secret value
 * wherever it appears in text (a response snippet may echo a token).
 */

/** Query parameter (and header) names that carry credentials. */
const SECRET_NAME = /key|token|secret|password|passwd|pwd|signature|sig$|auth|credential|session|cookie/i;

export const REDACTED = '***';

export class Redactor {
  private readonly values = new Set<string>();
  private readonly names = new Set<string>();

  /** Remember a secret value (tokens shorter than 4 characters are not worth a blind replace). */
  addValue(value: string | undefined): void {
    if (value !== undefined && value.length >= 4) this.values.add(value);
  }

  /** A query parameter that is secret whatever its name (an API key's `name`). */
  addParam(name: string): void {
    this.names.add(name.toLowerCase());
  }

  /** A header whose value is secret when its name looks like a credential. */
  addHeader(name: string, value: string): void {
    if (SECRET_NAME.test(name)) this.addValue(value);
  }

  url(url: string | URL): string {
    let parsed: URL;
    try {
      parsed = new URL(String(url));
    } catch {
      return this.text(String(url));
    }
    if (parsed.password) parsed.password = REDACTED;
    for (const name of [...new Set(parsed.searchParams.keys())]) {
      if (SECRET_NAME.test(name) || this.names.has(name.toLowerCase())) parsed.searchParams.set(name, REDACTED);
    }
    // URLSearchParams escapes "*"; keep the marker readable.
    return this.text(parsed.toString().replaceAll('%2A%2A%2A', REDACTED));
  }

  text(text: string): string {
    let result = text;
    for (const value of this.values) {
      result = result.replaceAll(value, REDACTED);
      const encoded = encodeURIComponent(value);
      if (encoded !== value) result = result.replaceAll(encoded, REDACTED);
    }
    return result;
  }
}

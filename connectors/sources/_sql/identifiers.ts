/**
 * Identifiers (table, schema and column names) come from the config and are
 * spliced into SQL, so they are validated and quoted per dialect; values never
 * are spliced: they travel as bound parameters.
 */
import { FerryError } from '../../../src/sdk/index.js';

export type QuoteStyle = 'ansi' | 'backtick';

const MAX_LENGTH = 128;

/**
 * Refuse names that cannot be a real identifier: empty, too long, or holding
 * control characters (NUL ends a C string inside the server). Quote characters
 * are allowed; {@link quoteIdentifier} doubles them.
 */
export function validateIdentifier(name: string, what: string): string {
  // eslint-disable-next-line no-control-regex
  if (name.length === 0 || name.length > MAX_LENGTH || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new FerryError('FERRY_CONFIG_INVALID', `invalid ${what} name ${JSON.stringify(name)}`, {
      hint: `a ${what} name is 1–${MAX_LENGTH} characters without control characters`,
    });
  }
  return name;
}

/** `"my ""odd"" name"` (PostgreSQL, SQLite) or `` `my ``odd`` name` `` (MySQL). */
export function quoteIdentifier(name: string, style: QuoteStyle): string {
  validateIdentifier(name, 'identifier');
  const q = style === 'ansi' ? '"' : '`';
  return `${q}${name.split(q).join(q + q)}${q}`;
}

/** A stable id for someone known only by name, since the service wants an id or an e-mail for every person. */
import { createHash } from 'node:crypto';

/**
 * `name:<slug>`: the same name gives the same id in every file and every run
 * (`Élodie  Martin` and `elodie martin` → `name:elodie-martin`); a name with
 * no Latin letters or digits gets a hash of itself.
 */
export function nameId(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `name:${slug || createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}

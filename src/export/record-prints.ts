/**
 * The fingerprint of an exported record (docs/exports.md#changed-records):
 * a hash of the record as the service returned it (after its detail), its
 * keys in sorted order so a service that reorders an object's keys changes
 * nothing, mixed with what decides how the destination stores it (the
 * destination, its options and the export's layout) so that pointing an
 * export at another table writes everything there.
 *
 * A recording's presigned URL is re-signed on each read (spec: they expire
 * after 24 hours): only its address without the query string counts, or
 * every conversation with a recording would look changed on every run.
 */
import { createHash } from 'node:crypto';

/** Keys of destination options left out of the fingerprint: a hash of a password is still not kept in state. */
const SECRET_OPTION = /url|password|secret|token|credential/i;

export class RecordPrints {
  readonly #salt: string;

  constructor(context: { destination: string; options: unknown; layout: unknown; details: boolean }) {
    const options = JSON.stringify(context.options ?? null, (key, value: unknown) => (key !== '' && SECRET_OPTION.test(key) ? undefined : value));
    this.#salt = createHash('sha1').update(JSON.stringify([context.destination, options, context.layout, context.details])).digest('base64');
  }

  of(record: Readonly<Record<string, unknown>>): string {
    const hash = createHash('sha1').update(this.#salt);
    hash.update(canonical(record, false));
    return hash.digest('base64').slice(0, 27);
  }
}

/** JSON with object keys sorted; the URLs of a `recordings` object without their query. */
function canonical(value: unknown, presigned: boolean): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(presigned && typeof value === 'string' ? withoutQuery(value) : value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((element) => canonical(element, presigned)).join(',')}]`;
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonical(record[key], presigned || key === 'recordings')}`;
  }
  return `${out}}`;
}

function withoutQuery(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}

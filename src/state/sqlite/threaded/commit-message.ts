/**
 * A commit's writes as they cross to the commit thread. Posted as objects,
 * each write's seven strings would be cloned one by one, on the run's own
 * thread, for a message the thread reads once; packed into one string, the
 * copy is one block (one byte a character when the config's text is: see
 * src/config/fast/compact-text.ts). The writes are joined with a separator
 * no id or fingerprint carries; a batch in which some field holds it, or is
 * not text, goes as objects, unpacked. Failures are rare and have many
 * fields: they go as objects beside the packed text, which marks where each
 * falls. Figures: docs/performance.md.
 */
import type { PendingWrite } from '../write-buffer.js';

/** A dead-letter write as the buffer holds it (not the store's FailureWrite, which has no `kind`). */
type PendingFailure = Extract<PendingWrite, { kind: 'failure' }>;

/** A commit's writes, in order: packed, or (when some text holds the separator) as they were. */
export type CommitWrites = { packed: string; failures: PendingFailure[] } | readonly PendingWrite[];

/** Between fields. No text ferry writes to the ledger holds it, and a batch where one does goes unpacked. */
const SEP = '\u0000';
/** Marks an optional field that is present: an absent one is empty, and a present one may be empty too. */
const PRESENT = '=';

/** The writes, packed; as they are when a field is not text or holds the separator. */
export function packWrites(writes: readonly PendingWrite[]): CommitWrites {
  let packed = '';
  const failures: PendingFailure[] = [];
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    if (w.kind === 'acknowledged') {
      const { sync, remoteId, fingerprint, recordId, origin, sourceFingerprint } = w.write;
      const fits = isText(sync) && isText(remoteId) && isText(fingerprint) && isText(recordId) && isText(w.at) && isOptionalText(origin) && isOptionalText(sourceFingerprint);
      if (!fits) return writes;
      packed += `a${SEP}${sync}${SEP}${remoteId}${SEP}${fingerprint}${SEP}${recordId}${SEP}${optional(origin)}${SEP}${optional(sourceFingerprint)}${SEP}${w.at}${SEP}`;
    } else if (w.kind === 'deleted') {
      if (!(isText(w.sync) && isText(w.remoteId) && isText(w.at))) return writes;
      packed += `d${SEP}${w.sync}${SEP}${w.remoteId}${SEP}${w.at}${SEP}`;
    } else {
      packed += `f${SEP}`;
      failures.push(w);
    }
  }
  return { packed, failures };
}

/** The writes {@link packWrites} was given, in their order. */
export function unpackWrites(writes: CommitWrites): readonly PendingWrite[] {
  if (!('packed' in writes)) return writes;
  const { packed, failures } = writes;
  const fields = packed.split(SEP);
  const out: PendingWrite[] = [];
  let failure = 0;
  // The text ends with a separator: its last field is empty.
  for (let i = 0; i < fields.length - 1; ) {
    const kind = fields[i++];
    if (kind === 'a') {
      const write: PendingWrite & { kind: 'acknowledged' } = {
        kind: 'acknowledged',
        write: { sync: fields[i]!, remoteId: fields[i + 1]!, fingerprint: fields[i + 2]!, recordId: fields[i + 3]! },
        at: fields[i + 6]!,
      };
      const origin = present(fields[i + 4]!);
      const sourceFingerprint = present(fields[i + 5]!);
      if (origin !== undefined) write.write.origin = origin;
      if (sourceFingerprint !== undefined) write.write.sourceFingerprint = sourceFingerprint;
      out.push(write);
      i += 7;
    } else if (kind === 'd') {
      out.push({ kind: 'deleted', sync: fields[i]!, remoteId: fields[i + 1]!, at: fields[i + 2]! });
      i += 3;
    } else if (kind === 'f') {
      out.push(failures[failure++]!);
    } else {
      throw new Error(`a commit's packed writes are damaged: field ${i - 1} is "${kind}", not a write's kind`);
    }
  }
  return out;
}

/**
 * A field that can be packed: text without the separator. Anything else (a `null` from a caller outside
 * TypeScript, say) sends the batch as objects, unchanged.
 */
function isText(value: unknown): boolean {
  return typeof value === 'string' && !value.includes(SEP);
}

/** An optional field that can be packed: absent, or {@link isText}. */
function isOptionalText(value: unknown): boolean {
  return value === undefined || isText(value);
}

function optional(text: string | undefined): string {
  return text === undefined ? '' : PRESENT + text;
}

function present(field: string): string | undefined {
  return field === '' ? undefined : field.slice(1);
}

/**
 * Ledger and dead-letter writes waiting for the next commit. Keeping them in
 * memory turns one transaction per record into one per batch; the store
 * commits them on checkpoint/flush, or when the buffer fills up.
 */
import type { AcknowledgedWrite, FailureWrite } from '../types.js';

export type PendingWrite =
  | { kind: 'acknowledged'; write: AcknowledgedWrite; at: string }
  | { kind: 'failure'; write: FailureWrite; at: string }
  | { kind: 'deleted'; sync: string; remoteId: string; at: string };

export class WriteBuffer {
  private writes: PendingWrite[] = [];
  /**
   * The records the writes concern, made by the first {@link touches} and
   * kept up from then on. A run that never reads its ledger back (a first
   * run) never makes it. Made eagerly, each record's key (a string and a set
   * entry) lived as long as its write, until the commit, through several
   * young-generation collections.
   */
  private keys: Set<string> | undefined;

  get size(): number {
    return this.writes.length;
  }

  add(write: PendingWrite): void {
    this.writes.push(write);
    if (this.keys !== undefined) addKey(this.keys, write);
  }

  /** Whether a pending write concerns one of these records (a read must then see it committed). */
  touches(sync: string, remoteIds: readonly string[]): boolean {
    if (this.writes.length === 0) return false;
    const keys = (this.keys ??= keysOf(this.writes));
    if (keys.size === 0) return false;
    return remoteIds.some((remoteId) => keys.has(recordKey(sync, remoteId)));
  }

  /** The pending writes in order; they stay buffered until {@link clear}, so a failed commit loses nothing. */
  pending(): readonly PendingWrite[] {
    return this.writes;
  }

  clear(): void {
    this.writes = [];
    this.keys = undefined;
  }
}

export type WriteGroup =
  | { kind: 'acknowledged'; writes: { write: AcknowledgedWrite; at: string }[] }
  | { kind: 'deleted'; writes: { sync: string; remoteId: string; at: string }[] }
  | { kind: 'failure'; write: Extract<PendingWrite, { kind: 'failure' }> };

/**
 * The writes in order, as groups a store applies with one multi-row
 * statement each: consecutive acknowledgements, or consecutive deletes; a
 * failure stands alone. With `repeats: false` a record already in the
 * current group starts a new one (for a database whose upsert may not touch
 * a row twice); SQLite applies a statement's rows in order, so there a
 * record's later write in the same group lands after its earlier one.
 */
export function groupWrites(writes: readonly PendingWrite[], { repeats }: { repeats: boolean }): WriteGroup[] {
  const groups: WriteGroup[] = [];
  let current: Exclude<WriteGroup, { kind: 'failure' }> | undefined;
  let keys = new Set<string>();
  for (const w of writes) {
    if (w.kind === 'failure') {
      current = undefined;
      groups.push({ kind: 'failure', write: w });
      continue;
    }
    const key = repeats ? '' : w.kind === 'acknowledged' ? recordKey(w.write.sync, w.write.remoteId) : recordKey(w.sync, w.remoteId);
    if (current === undefined || current.kind !== w.kind || (!repeats && keys.has(key))) {
      current = w.kind === 'acknowledged' ? { kind: 'acknowledged', writes: [] } : { kind: 'deleted', writes: [] };
      groups.push(current);
      keys = new Set();
    }
    if (!repeats) keys.add(key);
    // The pending writes themselves, not copies: no object per record on the way to the statement.
    if (current.kind === 'acknowledged' && w.kind === 'acknowledged') current.writes.push(w);
    else if (current.kind === 'deleted' && w.kind === 'deleted') current.writes.push(w);
  }
  return groups;
}

function keysOf(writes: readonly PendingWrite[]): Set<string> {
  const keys = new Set<string>();
  for (const write of writes) addKey(keys, write);
  return keys;
}

function addKey(keys: Set<string>, write: PendingWrite): void {
  const key = keyOf(write);
  if (key !== undefined) keys.add(key);
}

function keyOf(write: PendingWrite): string | undefined {
  switch (write.kind) {
    case 'acknowledged':
      return recordKey(write.write.sync, write.write.remoteId);
    case 'failure':
      return write.write.remoteId === null ? undefined : recordKey(write.write.sync, write.write.remoteId);
    case 'deleted':
      return recordKey(write.sync, write.remoteId);
  }
}

function recordKey(sync: string, remoteId: string): string {
  return `${sync}\u0000${remoteId}`;
}

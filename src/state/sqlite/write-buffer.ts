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
  private readonly keys = new Set<string>();

  get size(): number {
    return this.writes.length;
  }

  add(write: PendingWrite): void {
    this.writes.push(write);
    const key = keyOf(write);
    if (key !== undefined) this.keys.add(key);
  }

  /** Whether a pending write concerns one of these records (a read must then see it committed). */
  touches(sync: string, remoteIds: readonly string[]): boolean {
    if (this.keys.size === 0) return false;
    return remoteIds.some((remoteId) => this.keys.has(recordKey(sync, remoteId)));
  }

  /** The pending writes in order; they stay buffered until {@link clear}, so a failed commit loses nothing. */
  pending(): readonly PendingWrite[] {
    return this.writes;
  }

  clear(): void {
    this.writes = [];
    this.keys.clear();
  }
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

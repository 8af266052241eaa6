/**
 * Bucketing for partitioned reads done in the connector rather than in a
 * database (file sources, SQLite): a stable hash of a record's identity
 * modulo the partition count.
 */
import type { ReadPartition } from './types.js';

/**
 * The bucket (0 … `count - 1`) of `identity`: 32-bit FNV-1a of its UTF-8
 * bytes modulo `count`. Stable across processes, hosts and versions, so the
 * same record always lands in the same slice and each slice's cursor stays
 * valid from run to run.
 *
 * @example
 * partitionBucket('data/2024-01.csv', 4); // → always the same number in 0…3
 */
export function partitionBucket(identity: string, count: number): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(identity)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

/**
 * True when `identity` belongs to `partition`, or when there is no partition
 * (an unpartitioned read takes everything).
 */
export function inPartition(identity: string, partition: ReadPartition | undefined): boolean {
  return partition === undefined || partitionBucket(identity, partition.count) === partition.index;
}

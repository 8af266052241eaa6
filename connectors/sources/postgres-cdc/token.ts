/**
 * The checkpoint token a capture's records carry (SourceRecord.checkpoint),
 * which ferry stores with the ledger and hands back as `resumeFrom`:
 *
 * - `snapshot`: the initial read is under way; resume it after `after` (the
 *   key of the last landed row) in table `table` (an index into the sync's
 *   tables), then stream from `lsn` (the slot's consistent point). `last`:
 *   that row was the snapshot's last, so nothing of it is left to read.
 * - `stream`: streaming; resume from `lsn` (the end of the last transaction
 *   wholly landed before this one) and skip the first `n` changes of the
 *   transaction whose commit is at `txn` (they landed too).
 */
import { FerryError } from '../../../src/sdk/index.js';

export type CaptureToken =
  | { v: 1; phase: 'snapshot'; slot: string; lsn: string; table: number; after: string[]; last?: true }
  | { v: 1; phase: 'stream'; slot: string; lsn: string; txn: string; n: number };

export function parseToken(text: string | undefined, sync: string): CaptureToken | undefined {
  if (text === undefined) return undefined;
  try {
    const token = JSON.parse(text) as CaptureToken;
    if (token.v === 1 && (token.phase === 'snapshot' || token.phase === 'stream') && typeof token.lsn === 'string') return token;
  } catch {
    // reported below
  }
  throw new FerryError('FERRY_SOURCE_POSITION_LOST', `sync "${sync}": the stored position ${JSON.stringify(text.slice(0, 80))} is not a postgres-cdc position (was the sync's source changed?)`, {
    where: `sync ${sync}`,
    hint: `take a new snapshot: ferry run ${sync} --full-refresh`,
  });
}

export function tokenText(token: CaptureToken): string {
  return JSON.stringify(token);
}

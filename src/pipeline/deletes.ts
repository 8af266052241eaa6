/**
 * `deletes: mirror`: records the ledger knows as pushed but a complete read
 * did not see are deleted in the service, unless that would delete more than
 * the configured share of them (a truncated export or a wrong path looks just
 * like a mass deletion).
 */
import { FerryError } from '../sdk/errors.js';
import type { StateStore } from '../state/index.js';

export function planDeletes(
  store: StateStore,
  sync: string,
  seen: ReadonlySet<string>,
  maxDeletePercent: number,
  force: boolean,
): { remoteIds: string[] } {
  const remoteIds: string[] = [];
  for (const remoteId of store.liveRemoteIds(sync)) {
    if (!seen.has(remoteId)) remoteIds.push(remoteId);
  }
  const live = store.countLive(sync);
  const percent = live === 0 ? 0 : (remoteIds.length / live) * 100;
  if (!force && remoteIds.length > 0 && percent > maxDeletePercent) {
    throw new FerryError(
      'FERRY_MASS_DELETE_REFUSED',
      `sync "${sync}" would delete ${remoteIds.length} of ${live} records (${percent.toFixed(1)}%), above maxDeletePercent ${maxDeletePercent}%`,
      { hint: 'check the source is complete; raise maxDeletePercent or run with --force-deletes to delete anyway' },
    );
  }
  return { remoteIds };
}

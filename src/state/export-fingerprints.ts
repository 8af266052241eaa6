/**
 * What each record an export wrote looked like, as a hash, so that an
 * incremental run that scans the service's list writes only the records
 * that changed (docs/exports.md#changed-records). One row per (export,
 * record key): the committed fingerprint, and the one a run staged.
 *
 * Two phases, so a run killed at any moment is re-run exactly: a run stages
 * the fingerprints of what it wrote (and the deletions it applied) under its
 * load id while it writes, and commits them only once the destination has
 * committed everything (after the writer's close). A staged fingerprint is
 * never read as the record's: a record whose write may not have reached the
 * destination is written again by the next run.
 */

/** One staged entry: the record's key and the fingerprint of what was written; `null`: the record was deleted. */
export type StagedFingerprint = readonly [key: string, fingerprint: string | null];

/** The narrow port: fingerprints of exported records. */
export interface ExportFingerprintStore {
  /** The committed fingerprints of these keys of the export (its state key, `export:<name>`); a key without one is absent. */
  exportFingerprints(exportKey: string, keys: readonly string[]): Promise<Map<string, string>>;
  /** How many keys of the export hold a committed fingerprint. */
  countExportFingerprints(exportKey: string): Promise<number>;
  /** Stage what the load wrote (or deleted); invisible to {@link exportFingerprints} until {@link commitExportFingerprints}. */
  stageExportFingerprints(exportKey: string, loadId: string, entries: readonly StagedFingerprint[]): Promise<void>;
  /**
   * Stage the deletion of every key of the export with a committed
   * fingerprint that is not in `live` (the keys a full listing returned);
   * returns how many. `live` is iterated once and may hold a key twice.
   */
  stageUnlistedExportKeys(exportKey: string, loadId: string, live: Iterable<string>): Promise<number>;
  /** The load's staged entries become the committed ones; what other (dead) loads staged is dropped. */
  commitExportFingerprints(exportKey: string, loadId: string): Promise<void>;
}

/** Keys per statement when loading a listing into a temporary table. */
export const LIVE_CHUNK = 10_000;


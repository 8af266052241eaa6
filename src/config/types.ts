/** What loading a project gives the rest of ferry. */
import type { ExportConfig, MapSpec, MetricsConfig, ServiceConfig, SyncConfig, TargetConfig } from './schema.js';
import type { SourcePosition } from './issues.js';
import type { NotifyConfig } from './notify.js';

export type { ConfigIssue, SourcePosition } from './issues.js';

/** Where a sync or export was declared, so later stages can point into its file. */
export interface Located {
  /** Absolute path of the file that declares this node. */
  file: string;
  /** Directory of that file: the base of every relative path under this node. */
  baseDir: string;
  /** Key path of this node in its file, e.g. `['syncs', 2]`. */
  keyPath: (string | number)[];
  /**
   * Position of a key path under this node, e.g. `locate(['source', 'delimiter'])`.
   * A path that does not exist points at its nearest existing parent. With
   * `atKey`, a path ending at a mapping key points at the key, not its value.
   */
  locate(path: readonly (string | number)[], options?: { atKey?: boolean }): SourcePosition;
}

export interface LoadedSync extends SyncConfig, Located {}

/**
 * A sync as it runs: its source's default mapping for the target type (if
 * any) laid under the user's `map:` and `group:` (`withTargetDefaults`), so
 * `target.map` is always there.
 */
export interface ResolvedSync extends LoadedSync {
  target: TargetConfig & { map: MapSpec };
}
export interface LoadedExport extends ExportConfig, Located {}

export interface LoadedConfig {
  /** Absolute path of the project file. */
  file: string;
  /** Its directory. */
  baseDir: string;
  service: ServiceConfig;
  /** `sqlite:` URLs carry an absolute path; `postgres://` URLs are as written. */
  state: { url: string; schema?: string };
  /** Absolute paths (or `:memory:`). */
  emulator: { db: string; seed?: string };
  metrics: MetricsConfig;
  /** Alerts (`notify:`); webhook URLs are registered as secrets. */
  notify: NotifyConfig;
  /** Package names as written; local paths made absolute. */
  plugins: string[];
  /** Syncs of the project file, then of each included file in include order. */
  syncs: LoadedSync[];
  exports: LoadedExport[];
  /** Things worth telling the user that are not errors (an include glob matching nothing). */
  warnings: string[];
}

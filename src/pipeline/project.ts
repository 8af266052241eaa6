/**
 * Opening a project: its config, its state store. Commands call these so a
 * path or a state URL is resolved the same way everywhere.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../config/index.js';
import type { LoadedConfig } from '../config/index.js';
import { openStateStore } from '../state/index.js';
import type { StateStore } from '../state/index.js';
import { withRedactedWrites } from './redacted-state.js';

export async function loadProject(configFile: string): Promise<LoadedConfig> {
  return loadConfig(configFile);
}

/** Open the project's state store, creating the folder of a SQLite file; free-text writes are redacted. */
export async function openProjectState(config: LoadedConfig): Promise<StateStore> {
  const url = config.state.url;
  if (url.startsWith('sqlite:') && !url.startsWith('sqlite::memory:')) {
    mkdirSync(dirname(url.slice('sqlite:'.length)), { recursive: true });
  }
  return withRedactedWrites(await openStateStore(url, config.state.schema ? { schema: config.state.schema } : {}));
}

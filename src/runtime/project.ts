/**
 * Opening a project: its config, its state store. Commands call these so a
 * path or a state URL is resolved the same way everywhere.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../config/index.js';
import type { LoadConfigOptions, LoadedConfig } from '../config/index.js';
import { FerryError, isFerryError } from '../sdk/errors.js';
import { messageOf } from '../sdk/guards.js';
import { redactUrl } from '../sdk/redact.js';
import { openStateStore, parseStateUrl } from '../state/index.js';
import type { StateStore } from '../state/index.js';
import { makeFolder } from '../sdk/folders.js';
import { withRedactedWrites } from './redacted-state.js';

export async function loadProject(configFile: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  return loadConfig(configFile, options);
}

/**
 * Open the project's state store (free-text writes redacted), creating the folder of a SQLite file. A
 * store that cannot be opened is a FERRY_STATE_ERROR naming the URL. With a
 * logger, a state file that is missing or empty is logged: every sync then
 * starts over and pushes every record again, which must not happen unseen.
 */
export async function openProjectState(config: LoadedConfig, logger?: Logger): Promise<StateStore> {
  const url = config.state.url;
  try {
    const location = parseStateUrl(url);
    if (location.kind === 'sqlite') {
      makeFolder(dirname(location.path));
      if (logger) noteFreshState(location.path, logger);
    }
    return withRedactedWrites(await openStateStore(url, config.state.schema ? { schema: config.state.schema } : {}));
  } catch (error) {
    if (isFerryError(error)) throw error;
    throw new FerryError('FERRY_STATE_ERROR', `cannot open the state store ${redactUrl(url)}: ${messageOf(error)}`, {
      cause: error,
      where: `state.url in ${config.file}`,
      hint: 'state.url must name a SQLite file in a folder ferry can create and write (e.g. sqlite:state/ferry.db, relative to ferry.yaml)',
    });
  }
}

function noteFreshState(path: string, logger: Logger): void {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) {
    logger.info({ state: path }, 'no state file yet: every sync starts from the beginning and pushes every record it reads (a first run, or the state was lost)');
  } else if (info.size === 0) {
    logger.warn({ state: path }, 'the state file is empty (0 bytes): every sync starts from the beginning and pushes every record it reads again');
  }
}

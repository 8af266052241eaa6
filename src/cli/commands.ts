/** The list of command modules, in the order `ferry --help` shows them. */
import type { RegisterCommand } from './main.js';
import { register as ask } from './ask.js';
import { register as check } from './check.js';
import { register as connector } from './connector.js';
import { register as discover } from './discover.js';
import { register as emulator } from './emulator.js';
import { register as exportCommand } from './export.js';
import { register as failures } from './failures.js';
import { register as init } from './init.js';
import { register as preview } from './preview.js';
import { register as run } from './run.js';
import { register as schema } from './schema.js';
import { register as state } from './state.js';
import { register as status } from './status.js';
import { register as worker } from './worker.js';

export const COMMANDS: readonly RegisterCommand[] = [init, check, discover, preview, run, exportCommand, status, failures, state, ask, emulator, schema, connector, worker];

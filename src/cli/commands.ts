/** The list of command modules, in the order `ferry --help` shows them. */
import type { RegisterCommand } from './main.js';
import { register as emulator } from './emulator.js';
import { register as schema } from './schema.js';

export const COMMANDS: readonly RegisterCommand[] = [emulator, schema];

/**
 * The `ferry` command line. Each command lives in its own module, listed in
 * commands.ts and imported only when it runs; this file wires the global
 * options, loads the command asked for and turns errors into the exit codes
 * of DESIGN.md.
 */
import { Command, CommanderError, Option } from 'commander';
import { docsPage, ferryPackageVersion } from '../sdk/ferry-package.js';
import { isFerryError } from '../sdk/errors.js';
import { applyHeapDefaults } from '../runtime/heap.js';
import { configureLogs, LOG_FORMATS, LOG_LEVELS } from '../runtime/logger.js';
import type { LogFormat } from '../runtime/logger.js';
import { COMMANDS } from './commands.js';
import type { CommandEntry } from './commands.js';
import { printError } from './output.js';
import { redactTerminalOutput } from './redacted-output.js';

/**
 * What each command module exports: it receives its command, already named
 * and described from the table, and adds arguments, options and an action.
 * `setExitCode` records a non-zero outcome without throwing.
 */
export type RegisterCommand = (command: Command, setExitCode: (code: number) => void) => void;

/** The global options every command sees (`command.optsWithGlobals()`). */
export interface GlobalOptions {
  config: string;
  logLevel?: string;
  logFormat?: LogFormat;
  quiet?: boolean;
}

/** Global options that take a value: their value is not a command name. */
const VALUED_GLOBALS = new Set(['-c', '--config', '--log-level', '--log-format']);

/**
 * The program with every command listed; `load` names the commands whose
 * module is imported (all of them for the docs test, one for a normal run).
 */
export async function buildProgram(load: (entry: CommandEntry) => boolean, setExitCode: (code: number) => void = () => undefined): Promise<Command> {
  const program = new Command()
    .name('ferry')
    .description('Move data into and out of the Conversation Intelligence and Data Import Service')
    .version(ferryPackageVersion(), '-V, --version', 'print the ferry version')
    .option('-c, --config <file>', 'project file', 'ferry.yaml')
    .addOption(new Option('--log-level <level>', 'log level on stderr (default: info for run and export, warn otherwise; env FERRY_LOG_LEVEL)').choices(LOG_LEVELS))
    .addOption(new Option('--log-format <format>', 'log lines as JSON (default off a terminal) or pretty (default on one; env FERRY_LOG_FORMAT)').choices(LOG_FORMATS))
    .option('-q, --quiet', 'log only warnings and errors, no progress bar')
    .addHelpText('after', `\nDocs (README.md and docs/ of the installed package): ${docsPage('')}`)
    .exitOverride()
    .showHelpAfterError()
    .hook('preAction', (root: Command) => {
      const opts = root.opts<GlobalOptions>();
      const level = opts.logLevel ?? (opts.quiet ? 'warn' : undefined);
      configureLogs({ ...(level ? { level } : {}), ...(opts.logFormat ? { format: opts.logFormat } : {}) });
    });
  for (const entry of COMMANDS) {
    const command = program.command(entry.name).description(entry.description);
    if (load(entry)) (await entry.load()).register(command, setExitCode);
  }
  return program;
}

/** The command a command line names (`ferry -c x.yaml run` → run, `ferry help run` → run). */
export function commandNameOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i]!;
    if (VALUED_GLOBALS.has(token)) {
      i += 1;
      continue;
    }
    if (token.startsWith('-')) continue;
    return token === 'help' ? argv[i + 1] : token;
  }
  return undefined;
}

export async function main(argv: readonly string[]): Promise<number> {
  redactTerminalOutput();
  applyHeapDefaults();
  let exitCode = 0;
  const setExitCode = (code: number) => {
    exitCode = Math.max(exitCode, code);
  };
  const wanted = commandNameOf(argv);
  try {
    // `ferry completion` lists every command's options, so it needs them all loaded.
    const program = await buildProgram((entry) => entry.name === wanted || wanted === 'completion', setExitCode);
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? 0 : 1;
    }
    const code = isFerryError(error) ? error.exitCode : 3;
    printError(error, code);
    return code;
  }
}

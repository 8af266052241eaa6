/**
 * The `ferry` command line. Each command lives in its own file and registers
 * itself on the program; this file only wires them up and turns errors into
 * the exit codes of DESIGN.md.
 */
import { Command, CommanderError } from 'commander';
import { isFerryError } from '../sdk/errors.js';
import { COMMANDS } from './commands.js';
import { printError } from './output.js';
import { redactTerminalOutput } from './redacted-output.js';

export async function main(argv: readonly string[]): Promise<number> {
  redactTerminalOutput();
  const program = new Command()
    .name('ferry')
    .description('Move data into and out of the Conversation Intelligence and Data Import Service')
    .option('-c, --config <file>', 'project file', 'ferry.yaml')
    .exitOverride()
    .showHelpAfterError();
  let exitCode = 0;
  const setExitCode = (code: number) => {
    exitCode = Math.max(exitCode, code);
  };
  for (const register of COMMANDS) register(program, setExitCode);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? 0 : 1;
    }
    printError(error);
    return isFerryError(error) ? error.exitCode : 3;
  }
}

/** What each command module exports. `setExitCode` records a non-zero outcome without throwing. */
export type RegisterCommand = (program: Command, setExitCode: (code: number) => void) => void;

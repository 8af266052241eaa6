/**
 * The last line of defence for the terminal: every string the CLI writes to
 * stdout or stderr (tables, previews, JSON, error messages) passes through the
 * SDK's redactor, so no secret of the loaded config is ever printed, whatever
 * command printed it and however the text was built. Logs have their own
 * hook (runtime/logger.ts): pino writes to the file descriptor directly.
 */
import { redact } from '../sdk/redact.js';

let installed = false;

/**
 * Print a line past the redactor. Only for a value that is not a secret to
 * the person at this terminal, printed so it can be pasted: the development
 * key of a local emulator they just started (`ferry emulator`). Nothing from
 * a config or a service may go through here.
 */
export function printUnredacted(line: string): void {
  // A Buffer is not a string, so the wrapper below passes it through as is.
  process.stdout.write(Buffer.from(`${line}\n`));
}

/** Wrap `process.stdout.write` and `process.stderr.write` once per process. */
export function redactTerminalOutput(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? redact(chunk) : chunk, ...rest));
  }
}

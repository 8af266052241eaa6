/** Printing for the CLI: the one place that writes to the terminal. */
import { isFerryError } from '../sdk/errors.js';

export function printError(error: unknown): void {
  if (isFerryError(error)) {
    console.error(error.describe());
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  console.error(`error: ${message}`);
  if (process.env.FERRY_DEBUG && error instanceof Error && error.stack) console.error(error.stack);
}

/** Print a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

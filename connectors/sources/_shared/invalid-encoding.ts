/**
 * What a file source does with bytes that are not valid in the file's
 * encoding (`onInvalidEncoding`): `replace` reads them as U+FFFD, reports each
 * line as repaired (counted as repaired in the run summary) and warns once per
 * file with the first line numbers; `reject` stops the read naming file:line.
 */
import { z } from 'zod';
import { FerryError, type ConnectorLogger, type SkippedInput } from '../../../src/sdk/index.js';
import { utf8CheckFor, type Utf8Check } from './utf8-check.js';

/** replace: read invalid bytes as U+FFFD, count them and warn once per file; reject: stop the read at the first one, naming file:line. @default replace */
export const invalidEncodingOption = z.enum(['replace', 'reject']).default('replace');
export type InvalidEncodingMode = z.output<typeof invalidEncodingOption>;

/** How many line numbers the end-of-file warning lists. */
const SHOW_LINES = 10;

export interface EncodingScope {
  /** Relative path: what origins and messages show. */
  file: string;
  stream: string;
  encoding: string;
  mode: InvalidEncodingMode;
  syncName: string;
  logger: ConnectorLogger;
  reportSkipped?: ((input: SkippedInput) => void) | undefined;
}

/** Where the lines with invalid bytes come from: a {@link Utf8Check} in this thread, or one that runs where the file is read. */
export interface InvalidLines {
  /** Invalid lines up to and including `line`, ascending, each given once. */
  takeUpTo(line: number): number[];
}

export class InvalidEncodingGuard {
  /** The byte check to put before the decoder; undefined when the encoding accepts every byte, or when `found` is given. */
  readonly check: Utf8Check | undefined;
  private readonly found: InvalidLines | undefined;
  /** Lines read with U+FFFD: how many, and the first few for the warning (not every one: a whole file may need it). */
  private replacedCount = 0;
  private readonly replacedShown: number[] = [];

  /** With `found`, the bytes are checked elsewhere (a parse thread) and their invalid lines arrive through it. */
  constructor(private readonly scope: EncodingScope, found?: InvalidLines) {
    this.check = found === undefined ? utf8CheckFor(scope.encoding) : undefined;
    this.found = found ?? this.check;
  }

  /**
   * Call before yielding a record that ends on `lastLine`: every invalid
   * line up to there is reported (replace) or stops the read (reject).
   */
  before(lastLine: number): void {
    const lines = this.found?.takeUpTo(lastLine) ?? [];
    if (lines.length === 0) return;
    const { file, stream, mode, syncName } = this.scope;
    if (mode === 'reject') {
      throw new FerryError('FERRY_SOURCE_READ_FAILED', `${file}:${lines[0]}: bytes that are not valid ${this.scope.encoding} (onInvalidEncoding: reject)`, {
        where: `${file}:${lines[0]} (sync ${syncName})`,
        hint: 'declare the file\'s real encoding (encoding: latin1, windows-1252…), fix the bytes, or set onInvalidEncoding: replace to read them as U+FFFD (counted and warned about)',
        details: { file, line: lines[0] },
      });
    }
    for (const line of lines) {
      this.replacedCount++;
      if (this.replacedShown.length < SHOW_LINES) this.replacedShown.push(line);
      this.scope.reportSkipped?.({ action: 'repaired', origin: { stream, file, line }, reason: `bytes not valid ${this.scope.encoding} replaced by U+FFFD` });
    }
  }

  /** At the end of the file: report what is left and warn once about every replaced line. */
  finish(): void {
    this.before(Number.POSITIVE_INFINITY);
    const count = this.replacedCount;
    if (count === 0) return;
    const { file, logger, encoding } = this.scope;
    const shown = this.replacedShown.join(', ') + (count > SHOW_LINES ? ', …' : '');
    logger.warn(
      { file, lines: this.replacedShown, count },
      `${file}: ${count} line(s) had bytes that are not valid ${encoding}, read as U+FFFD (line ${shown}); declare the file's encoding if it is not ${encoding}, or set onInvalidEncoding: reject`,
    );
  }
}

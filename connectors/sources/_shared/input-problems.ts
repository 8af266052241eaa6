/**
 * Reporting input a source skipped or repaired (a malformed cue, a message
 * that does not parse, a zip entry refused): each is counted through
 * `reportSkipped` and warned about with its file and line, the first few one
 * by one and then as a total per file, so a broken file does not bury the log.
 */
import type { ConnectorLogger, SkippedInput } from '../../../src/sdk/index.js';

/** Problems warned about one by one per file; the rest go into the file's total. */
const SHOWN_PER_FILE = 5;

export interface InputProblem {
  line: number;
  action: 'skipped' | 'repaired';
  reason: string;
}

export class InputProblems {
  private readonly perFile = new Map<string, number>();

  constructor(
    private readonly ctx: { logger: ConnectorLogger; reportSkipped?: ((input: SkippedInput) => void) | undefined },
    private readonly stream: string,
  ) {}

  report(file: string, problem: InputProblem): void {
    this.ctx.reportSkipped?.({ action: problem.action, origin: { stream: this.stream, file, line: problem.line }, reason: problem.reason });
    const seen = (this.perFile.get(file) ?? 0) + 1;
    this.perFile.set(file, seen);
    if (seen <= SHOWN_PER_FILE) {
      this.ctx.logger.warn({ file, line: problem.line, action: problem.action }, `${file}:${problem.line}: ${problem.reason} (${problem.action})`);
    }
  }

  /** After a file: the total, when more problems were found than were shown. */
  finishFile(file: string): void {
    const seen = this.perFile.get(file) ?? 0;
    if (seen > SHOWN_PER_FILE) {
      this.ctx.logger.warn({ file, count: seen }, `${file}: ${seen} problems in all (the first ${SHOWN_PER_FILE} are above); each is counted (skipped or repaired) in the run summary`);
    }
  }
}

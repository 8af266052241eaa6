/**
 * Text split into numbered lines. Apart from files.ts so that a parse
 * thread, which needs only this and text-file.ts, does not load zod, the
 * glob matcher and the SDK as well.
 */

/** One line of text, numbered from 1, without its line break. */
export interface TextLine {
  line: number;
  text: string;
}

/** A line longer than the splitter's limit: thrown before more of it is held. */
export class LineTooLongError extends Error {
  readonly code = 'LINE_TOO_LONG';
  constructor(
    /** The line's number. */
    readonly line: number,
    /** Characters of it seen so far (more than the limit). */
    readonly length: number,
    readonly limit: number,
  ) {
    super(`line ${line} is longer than ${limit} characters`);
    this.name = 'LineTooLongError';
  }
}

/**
 * Splits text pushed chunk by chunk into lines, numbered from 1; `\r\n`,
 * `\n` and a final line without a newline all work. Lines are taken one at
 * a time and synchronously, so a parser can drain what it holds without a
 * promise per line.
 */
export class LineSplitter {
  private data = '';
  private start = 0;
  private line = 0;
  private ended = false;
  /**
   * The start of a line that chunks without a line break keep extending: kept
   * aside and joined once its end comes, so a line of many chunks is copied
   * once rather than once per chunk.
   */
  private pending: string[] = [];
  private pendingLength = 0;

  /** `maxLineLength`: a longer line throws {@link LineTooLongError} as soon as that much of it is held. */
  constructor(private readonly maxLineLength = Number.POSITIVE_INFINITY) {}

  /** Add the next chunk; call only once {@link take} has returned undefined. */
  push(chunk: string | Buffer): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const rest = this.start < this.data.length ? (this.start === 0 ? this.data : this.data.slice(this.start)) : '';
    if (!text.includes('\n')) {
      // No line ends here: set the text aside until one does.
      if (rest !== '') this.pending.push(rest);
      this.pending.push(text);
      this.pendingLength += rest.length + text.length;
      this.data = '';
      this.start = 0;
      if (this.pendingLength > this.maxLineLength) this.tooLong(this.pendingLength);
      return;
    }
    this.data = this.joined(rest + text);
    this.start = 0;
  }

  /** No more chunks: the text after the last line break is a last line. */
  end(): void {
    this.ended = true;
    if (this.pending.length === 0) return;
    this.data = this.joined(this.start < this.data.length ? this.data.slice(this.start) : '');
    this.start = 0;
  }

  /** The text set aside, then `text`. */
  private joined(text: string): string {
    if (this.pending.length === 0) return text;
    this.pending.push(text);
    const joined = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    return joined;
  }

  private tooLong(length: number): never {
    this.pending = [];
    this.pendingLength = 0;
    this.data = '';
    throw new LineTooLongError(this.line + 1, length, this.maxLineLength);
  }

  /** The next whole line, or undefined when the text pushed so far holds none. */
  take(): TextLine | undefined {
    const { data, start } = this;
    const newline = data.indexOf('\n', start);
    if (newline === -1) {
      if (!this.ended || start >= data.length) return undefined;
      this.start = data.length;
      if (data.length - start > this.maxLineLength) this.tooLong(data.length - start);
      return { line: ++this.line, text: data.endsWith('\r') ? data.slice(start, -1) : data.slice(start) };
    }
    if (newline - start > this.maxLineLength) this.tooLong(newline - start);
    this.start = newline + 1;
    const end = newline > start && data.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    return { line: ++this.line, text: data.slice(start, end) };
  }
}

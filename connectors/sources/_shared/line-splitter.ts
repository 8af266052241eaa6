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

  /** Add the next chunk; call only once {@link take} has returned undefined. */
  push(chunk: string | Buffer): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.data = this.start < this.data.length ? this.data.slice(this.start) + text : text;
    this.start = 0;
  }

  /** No more chunks: the text after the last line break is a last line. */
  end(): void {
    this.ended = true;
  }

  /** The next whole line, or undefined when the text pushed so far holds none. */
  take(): TextLine | undefined {
    const { data, start } = this;
    const newline = data.indexOf('\n', start);
    if (newline === -1) {
      if (!this.ended || start >= data.length) return undefined;
      this.start = data.length;
      return { line: ++this.line, text: data.endsWith('\r') ? data.slice(start, -1) : data.slice(start) };
    }
    this.start = newline + 1;
    const end = newline > start && data.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    return { line: ++this.line, text: data.slice(start, end) };
  }
}

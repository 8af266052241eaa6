import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLongError, type TextLine } from '../../../../connectors/sources/_shared/line-splitter.js';

/** Every line of `chunks`, pushed one by one as a reader does. */
function split(chunks: string[], max?: number): TextLine[] {
  const lines = new LineSplitter(max);
  const out: TextLine[] = [];
  for (const chunk of chunks) {
    lines.push(chunk);
    for (let line = lines.take(); line !== undefined; line = lines.take()) out.push(line);
  }
  lines.end();
  for (let line = lines.take(); line !== undefined; line = lines.take()) out.push(line);
  return out;
}

describe('LineSplitter', () => {
  it('gives each line once, whatever the chunks: a line over many chunks, CRLF, a last line without a newline', () => {
    const text = 'a\r\nbb' + 'x'.repeat(10) + '\nc\n\nlast';
    const expected = [
      { line: 1, text: 'a' },
      { line: 2, text: 'bb' + 'x'.repeat(10) },
      { line: 3, text: 'c' },
      { line: 4, text: '' },
      { line: 5, text: 'last' },
    ];
    for (const size of [1, 2, 3, 5, 7, 100]) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(split(chunks), `chunks of ${size}`).toEqual(expected);
    }
  });

  it('throws LineTooLongError with the line number once a line is longer than the limit, before the rest of it comes', () => {
    const lines = new LineSplitter(10);
    lines.push('ok\n0123456');
    expect(lines.take()).toEqual({ line: 1, text: 'ok' });
    expect(lines.take()).toBeUndefined();
    let thrown: unknown;
    try {
      lines.push('789abc');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LineTooLongError);
    expect(thrown).toMatchObject({ line: 2, limit: 10, code: 'LINE_TOO_LONG' });
  });

  it('checks a long line that arrives whole, and the last line', () => {
    expect(() => split(['short\n' + 'y'.repeat(20) + '\n'], 10)).toThrow(/line 2 is longer than 10/);
    expect(() => split(['short\n' + 'y'.repeat(20)], 10)).toThrow(/line 2 is longer than 10/);
    expect(split(['0123456789\n0123456789'], 10)).toHaveLength(2);
  });
});

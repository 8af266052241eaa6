import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { isUtf8Encoding, Utf8Check } from '../../../connectors/sources/_shared/utf8-check.js';

/** Run bytes through the check in the given chunks; the lines it flagged. */
async function invalidLines(chunks: Buffer[]): Promise<number[]> {
  const check = new Utf8Check();
  await pipeline(Readable.from(chunks), check, async (source: AsyncIterable<Buffer>) => {
    for await (const _ of source) {
      // drain
    }
  });
  return check.takeUpTo(Number.POSITIVE_INFINITY);
}

describe('Utf8Check', () => {
  it('flags the lines with invalid bytes, once per line', async () => {
    const bytes = Buffer.concat([Buffer.from('ok\ncaf'), Buffer.from([0xe9]), Buffer.from('\nfine é\n'), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]);
    expect(await invalidLines([bytes])).toEqual([2, 4]);
  });

  it('accepts a multi-byte character split across chunks, and flags one cut short at the end', async () => {
    const text = Buffer.from('a\nnaïve €\n');
    const cut = text.indexOf(0xe2) + 1; // inside the three bytes of €
    expect(await invalidLines([text.subarray(0, cut), text.subarray(cut)])).toEqual([]);
    expect(await invalidLines([Buffer.from('a\nb\n'), Buffer.from([0x63, 0xe2, 0x82])])).toEqual([3]);
  });

  it('hands out flagged lines up to a record end, in order', async () => {
    const check = new Utf8Check();
    check.write(Buffer.from([0x31, 0x0a, 0xff, 0x0a, 0x33, 0x0a, 0xc0, 0x0a]));
    expect(check.takeUpTo(1)).toEqual([]);
    expect(check.takeUpTo(3)).toEqual([2]);
    expect(check.takeUpTo(Number.POSITIVE_INFINITY)).toEqual([4]);
  });

  it('applies to utf8 only', () => {
    expect(['utf8', 'UTF-8', 'utf-8'].every(isUtf8Encoding)).toBe(true);
    expect(isUtf8Encoding('latin1')).toBe(false);
  });
});

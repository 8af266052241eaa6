/**
 * Reading the files this destination writes, a line at a time (gzipped ones
 * through gunzip, every member in turn), and handing text on in chunks:
 * never a whole file in memory.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Every line of the file, empty ones included, without its line end. */
export async function* fileLines(path: string, gzip = false): AsyncGenerator<string, void, undefined> {
  const raw = createReadStream(path);
  const input: Readable = gzip ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    yield* lines;
  } finally {
    lines.close();
    raw.destroy();
  }
}

/** Text of about `chars` characters at a time (never less than one piece), the pieces joined as they come. */
export async function* textChunks(pieces: AsyncIterable<string>, chars = 1 << 20): AsyncGenerator<string, void, undefined> {
  let text = '';
  for await (const piece of pieces) {
    text += piece;
    if (text.length >= chars) {
      yield text;
      text = '';
    }
  }
  if (text !== '') yield text;
}

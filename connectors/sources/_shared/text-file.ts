/**
 * Opening a file as a stream of decoded text: read, gunzip, check, decode.
 * Apart from the rest of files.ts so that a parse thread, which needs only
 * this, does not load zod, the glob matcher and the SDK as well (each
 * thread's memory is the process's).
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { StringDecoder } from 'node:string_decoder';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type Iconv from 'iconv-lite';
import type { Compression } from './files.js';
import { isUtf8Encoding } from './utf8-check.js';

export function isGzip(file: string, compression: Compression): boolean {
  if (compression === 'auto') return /\.gz$/i.test(file);
  return compression === 'gzip';
}

/** The file name without a trailing `.gz`, for format detection. */
export function withoutGz(file: string): string {
  return file.replace(/\.gz$/i, '');
}

const READ_CHUNK_BYTES = 16 * 1024;

/**
 * Open a file as a readable of decoded text chunks, streaming (never the whole
 * file in memory): read → gunzip → decode (BOM stripped). Aborting `signal`
 * destroys the chain and the consumer's iteration rejects.
 */
export function openText(
  file: string,
  options: { encoding: string; compression: Compression; signal?: AbortSignal; check?: Transform | undefined; chunkBytes?: number },
): Readable {
  // 16 KiB reads, not the default 64: a parser turns a whole chunk into records
  // in one go (hundreds of rows), and a run's pushes are answered and followed
  // only between such pieces of work. Fewer records then wait in the parser's
  // buffer, too, so fewer survive a young-generation collection.
  // A reader that takes its text a line at a time passes a size of its own (jsonl/parse-thread/).
  const input = createReadStream(file, { highWaterMark: options.chunkBytes ?? READ_CHUNK_BYTES, ...(options.signal ? { signal: options.signal } : {}) });
  const decoder = decoderFor(options.encoding);
  const noop = (): void => {
    // Errors reach the consumer through the last stream, which pipeline destroys with them.
  };
  // The byte check (invalid-encoding.ts) sees the raw bytes, before the decoder replaces them.
  const gzip = isGzip(file, options.compression);
  const { check } = options;
  if (gzip && check) return pipeline(input, createGunzip(), check, decoder, noop);
  if (gzip) return pipeline(input, createGunzip(), decoder, noop);
  if (check) return pipeline(input, check, decoder, noop);
  return pipeline(input, decoder, noop);
}

/**
 * A decoder of `encoding`'s bytes into text, BOM stripped. UTF-8 is decoded
 * by Node's own decoder, as iconv-lite does (invalid bytes become U+FFFD
 * alike); iconv-lite is loaded only for other encodings, since loading it
 * (its codec tables) was about a third of a parse thread's start.
 */
function decoderFor(encoding: string): Transform {
  if (isUtf8Encoding(encoding)) return new Utf8Decoder();
  const iconv = createRequire(import.meta.url)('iconv-lite') as typeof Iconv;
  return iconv.decodeStream(encoding, { stripBOM: true }) as unknown as Transform;
}

/** UTF-8 bytes in, text out (string chunks), a leading BOM stripped. */
class Utf8Decoder extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private started = false;

  constructor() {
    super({ decodeStrings: true, encoding: 'utf8' });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.emitText(this.decoder.write(chunk));
    done();
  }

  override _flush(done: TransformCallback): void {
    this.emitText(this.decoder.end());
    done();
  }

  private emitText(text: string): void {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length > 0) this.push(text);
  }
}

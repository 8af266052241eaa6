/**
 * A JSON Lines parse thread: reads one file and posts its lines in batches
 * (see parse-thread.ts for what a batch carries).
 */
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { workerData } from 'node:worker_threads';
import { messageOf } from '../../../src/sdk/guards.js';
import { recordKey } from '../_shared/incremental.js';
import { LineSplitter } from '../_shared/line-splitter.js';
import { serveRows } from '../_shared/parse-thread-worker.js';
import { openText } from '../_shared/text-file.js';
import { isUtf8Encoding, Utf8Check } from '../_shared/utf8-check.js';
import { BATCHES_PER_MESSAGE, type JsonlThreadInput, type LineBatch } from './parse-thread.js';
import { recordData } from './record-data.js';

/** Text in, one {@link LineBatch} out per chunk that holds a line that is not blank. */
class LineParser extends Transform {
  private readonly lines = new LineSplitter();

  constructor(private readonly input: JsonlThreadInput) {
    super({ writableObjectMode: true, readableObjectMode: true });
  }

  override _transform(chunk: string, _encoding: BufferEncoding, done: TransformCallback): void {
    this.lines.push(chunk);
    this.batch();
    done();
  }

  override _flush(done: TransformCallback): void {
    this.lines.end();
    this.batch();
    done();
  }

  /** The whole lines at hand, as one batch. */
  private batch(): void {
    const { fileField, primaryKey } = this.input;
    const texts: string[] = [];
    const lines: number[] = [];
    const keys: LineBatch['keys'] = primaryKey?.length ? [] : null;
    let invalid: LineBatch['invalid'] = null;
    for (let next = this.lines.take(); next !== undefined; next = this.lines.take()) {
      const { line } = next;
      // As the run's thread reads a line (parse-file.ts): a BOM on line 1 is not text, a blank line no record.
      const text = line === 1 && next.text.charCodeAt(0) === 0xfeff ? next.text.slice(1) : next.text;
      if (isBlank(text)) continue;
      texts.push(text);
      lines.push(line);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        (invalid ??= []).push([lines.length - 1, messageOf(error)]);
        keys?.push(null);
        continue;
      }
      keys?.push(recordKey(recordData(value, fileField), primaryKey) ?? null);
    }
    if (lines.length === 0) return;
    texts.push('');
    this.push({ text: texts.join('\n'), lines, keys, invalid } satisfies LineBatch);
  }
}

/** Whether a line holds nothing but white space (as `trim()` sees it), without trimming a line that starts as JSON values do. */
function isBlank(text: string): boolean {
  const c = text.charCodeAt(0);
  return !(c === 0x7b || c === 0x5b || c === 0x22) && text.trim() === '';
}

/**
 * Read 64 KiB at a time, not the 16 KiB of a parse in the run's thread
 * (text-file.ts): nothing here waits between pieces of work, and fewer,
 * larger reads cost less.
 */
const CHUNK_BYTES = 64 * 1024;

const input = workerData as JsonlThreadInput;
const check = isUtf8Encoding(input.options.encoding) ? new Utf8Check() : undefined;
const parser = new LineParser(input);
pipeline(openText(input.path, { ...input.options, check, chunkBytes: CHUNK_BYTES }), parser, () => {
  // Errors surface through the line parser (its 'error'), which serveRows posts.
});
serveRows<LineBatch>(parser, check, BATCHES_PER_MESSAGE);

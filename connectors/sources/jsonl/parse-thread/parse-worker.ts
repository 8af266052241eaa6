/**
 * A JSON Lines parse thread: reads one file and posts its lines in batches
 * (see parse-thread.ts for what a batch carries).
 */
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { workerData } from 'node:worker_threads';
import { messageOf } from '../../../../src/sdk/guards.js';
import { recordKey } from '../../_shared/incremental.js';
import { LineSplitter } from '../../_shared/line-splitter.js';
import { serveRows } from '../../_shared/parse-thread/parse-thread-worker.js';
import { openText } from '../../_shared/text-file.js';
import { utf8CheckFor } from '../../_shared/utf8-check.js';
import { BATCHES_PER_MESSAGE, JSON_READ_BYTES, type JsonlThreadInput, type LineBatch } from './parse-thread.js';
import { recordData, valueText } from '../record-data.js';

/** Text in, one {@link LineBatch} out per chunk that holds a line that is not blank. */
class LineParser extends Transform {
  private readonly lines: LineSplitter;

  constructor(private readonly input: JsonlThreadInput) {
    super({ writableObjectMode: true, readableObjectMode: true });
    this.lines = new LineSplitter(input.options.maxRecordBytes);
  }

  override _transform(chunk: string, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.lines.push(chunk);
      this.batch();
    } catch (error) {
      // A line above the limit: the read ends with it (serveRows posts it).
      done(error as Error);
      return;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    try {
      this.lines.end();
      this.batch();
    } catch (error) {
      done(error as Error);
      return;
    }
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
      const text = valueText(next);
      if (text === undefined) continue;
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

const input = workerData as JsonlThreadInput;
const check = utf8CheckFor(input.options.encoding);
const parser = new LineParser(input);
pipeline(openText(input.path, { ...input.options, check, chunkBytes: JSON_READ_BYTES }), parser, () => {
  // Errors surface through the line parser (its 'error'), which serveRows posts.
});
serveRows<LineBatch>(parser, check, BATCHES_PER_MESSAGE);

/**
 * Reading JSON request bodies with the service's limits: Content-Length is
 * required (411) and at most 10 MB (413), checked from the header before
 * reading and again while reading in case the header lies.
 */
import type { IncomingMessage } from 'node:http';
import { BODY_LIMIT_BYTES } from '../../api/schemas/common.js';
import { ApiError, validation } from './errors.js';

export function checkBodyHeaders(req: IncomingMessage, limit = BODY_LIMIT_BYTES): void {
  const header = req.headers['content-length'];
  if (header === undefined || req.headers['transfer-encoding'] !== undefined) {
    throw new ApiError(411, 'length_required', 'a Content-Length header is required on POST and PATCH requests');
  }
  const length = Number(header);
  if (!Number.isInteger(length) || length < 0) {
    throw new ApiError(411, 'length_required', 'Content-Length must be a non-negative integer');
  }
  if (length > limit) {
    throw new ApiError(413, 'payload_too_large', `request body of ${length} bytes exceeds the limit of ${limit} bytes`);
  }
}

/** A JSON media type: `application/json`, parameters such as `charset=utf-8` allowed. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;.*)?$/i;

/** POST/PATCH bodies are JSON: any other (or no) Content-Type is a 400, as a strict service would answer. */
export function checkJsonContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  if (type === undefined || !JSON_CONTENT_TYPE.test(type.trim())) {
    throw validation(
      `Content-Type must be application/json; found ${type === undefined ? 'none' : JSON.stringify(type)}`,
    );
  }
}

/**
 * How much of a refused upload (411, 413) is read and thrown away before
 * answering. Many clients (Python's http.client among them) write the whole
 * body before reading the response; answering and closing early would give
 * them a broken pipe instead of the 413. Beyond these bounds the connection
 * is closed anyway.
 */
export const DRAIN_LIMIT_BYTES = 4 * BODY_LIMIT_BYTES;
const DRAIN_TIMEOUT_MS = 15_000;

/** Read and discard the rest of the request body; true when it was read to its end. */
export function drainBody(req: IncomingMessage, maxBytes = DRAIN_LIMIT_BYTES, maxMs = DRAIN_TIMEOUT_MS): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (req.socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    req.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
    req.resume();
  });
}

/**
 * The whole request body. Read from its events rather than `for await`: the
 * stream's async iterator costs a promise and a result object per chunk, a
 * visible share of every pushed record's write (a body is one chunk). Over `limit` it stops reading and rejects with 413,
 * leaving the rest for {@link drainBody}.
 */
export function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  // As `for await` did: a body already read to its end reads as empty (no 'end' would come again).
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      reject(new ApiError(413, 'payload_too_large', `request body exceeds the limit of ${limit} bytes`));
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error('the client closed the connection before the request body ended'));
    };
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

export function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw validation('request body is empty; a JSON object is expected');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw validation(`malformed JSON body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

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

export async function readBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      throw new ApiError(413, 'payload_too_large', `request body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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

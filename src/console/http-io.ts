/** Small helpers for the console's HTTP answers and request bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FerryError } from '../sdk/errors.js';
import { redactValue } from '../sdk/redact.js';

/** A request body larger than this is refused: the console's actions take a few ids, never data. */
const MAX_BODY_BYTES = 1024 * 1024;

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** A JSON answer, every string passed through the one redactor. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(redactValue(value));
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendError(res: ServerResponse, status: number, message: string, extra: Record<string, unknown> = {}): void {
  sendJson(res, status, { error: { message, ...extra } });
}

export function sendFile(res: ServerResponse, body: Buffer | string, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), 'content-security-policy': CONTENT_SECURITY_POLICY, ...headers });
  res.end(body);
}

/** The request's JSON body (an object), bounded. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) throw new FerryError('FERRY_USAGE', 'send the action as JSON (Content-Type: application/json)');
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new FerryError('FERRY_USAGE', `request body above ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FerryError('FERRY_USAGE', 'the request body must be a JSON object');
  return value as Record<string, unknown>;
}

export { SECURITY_HEADERS };

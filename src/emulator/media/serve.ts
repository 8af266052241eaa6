/**
 * GET/HEAD /media/<id>.<ext>: recording bytes behind "presigned" URLs
 * (HMAC signature + expiry), with single-range HTTP Range support.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { sendJson } from '../http/respond.js';

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | undefined;

/** Parse a `Range` header against a resource of `size` bytes; undefined means "send everything". */
export function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return undefined; // Multi-range and unknown units: answer the whole body, as RFC 9110 allows.
  const [, from = '', to = ''] = m;
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

export function serveMedia(app: App, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const m = /^\/media\/([0-9a-fA-F-]{36})\.(\w+)$/.exec(url.pathname);
  const media = m?.[1] ? app.store.media.find(m[1]) : undefined;
  if (!m?.[1] || !media) return sendJson(res, 404, { detail: 'Not Found' });
  const expires = Number(url.searchParams.get('expires'));
  const disposition = url.searchParams.get('disposition') ?? '';
  const signature = url.searchParams.get('signature') ?? '';
  if (!Number.isInteger(expires) || !app.verifyMediaSignature(media.id, expires, disposition, signature)) {
    return sendJson(res, 403, { detail: 'invalid or missing URL signature' });
  }
  if (expires * 1000 < Date.now()) return sendJson(res, 403, { detail: 'URL expired' });

  const size = media.bytes.length;
  const headers: Record<string, string> = {
    'content-type': media.contentType,
    'accept-ranges': 'bytes',
    'cache-control': 'private, max-age=3600',
    'content-disposition': `${disposition === 'download' ? 'attachment' : 'inline'}; filename="${media.id}.${m[2] ?? 'bin'}"`,
  };
  const range = parseRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'content-range': `bytes */${size}`, 'content-length': '0' });
    res.end();
    return;
  }
  const body = range ? media.bytes.subarray(range.start, range.end + 1) : media.bytes;
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  headers['content-length'] = String(body.length);
  res.writeHead(range ? 206 : 200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

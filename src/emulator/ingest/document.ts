/** DocumentRequest / UpdateDocumentRequest → what the store keeps. */
import type { z } from 'zod';
import type { documentRequest, updateDocumentRequest } from '../../api/schemas/write.js';
import type { DocumentData } from '../store/types.js';

export type ParsedDocument = z.output<typeof documentRequest>;
export type ParsedDocumentUpdate = z.output<typeof updateDocumentRequest>;

const MAX_INDEXED_TEXT = 500_000;

/** The last path segment of a URL, decoded; undefined when there is none. */
export function filenameOfUrl(url: string): string | undefined {
  try {
    const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
    return segment ? decodeURIComponent(segment) : undefined;
  } catch {
    const segment = url.split(/[?#]/)[0]?.split('/').filter(Boolean).pop();
    return segment || undefined;
  }
}

function isTextual(contentType: string): boolean {
  const type = contentType.toLowerCase();
  return (
    type.startsWith('text/') ||
    /^application\/(json|xml|javascript|x-ndjson|csv|yaml|x-yaml)\b/.test(type) ||
    /\+(json|xml)\b/.test(type)
  );
}

/** Text of a textual upload, for search (HTML tags stripped); null for binary types. */
export function extractText(base64: string, contentType: string): string | null {
  if (!isTextual(contentType)) return null;
  let text = Buffer.from(base64.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/html/i.test(contentType)) text = text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ');
  return text.slice(0, MAX_INDEXED_TEXT);
}

const byteLength = (base64: string) => Buffer.from(base64.replace(/\s+/g, ''), 'base64').length;

/** Default display name: displayName, else filename, else the URL's file name, else the caller id. */
export function defaultDisplayName(input: { displayName?: string | null; filename?: string | null; url?: string | null }, remoteId: string): string {
  return input.displayName || input.filename || (input.url ? filenameOfUrl(input.url) : undefined) || remoteId;
}

export function documentData(body: ParsedDocument, previous: DocumentData | undefined): DocumentData {
  const content = body.content ?? null;
  return {
    displayName: defaultDisplayName(body, body.id),
    url: body.url ?? null,
    contentType: body.contentType,
    filename: body.filename ?? null,
    createdAt: body.createdAt ?? null,
    updatedAt: body.updatedAt ?? null,
    author: body.author ? { id: body.author.id ?? null, name: body.author.name ?? null, email: body.author.email ?? null } : null,
    version: previous ? previous.version + 1 : 1,
    text: content !== null ? extractText(content, body.contentType) : null,
    contentBytes: content !== null ? byteLength(content) : null,
  };
}

/**
 * Apply a PATCH: metadata fields overwrite when given (null is ignored),
 * url or content replaces the body as a new version.
 */
export function patchDocument(current: DocumentData, patch: ParsedDocumentUpdate, remoteId: string): DocumentData {
  const next: DocumentData = { ...current };
  if (patch.contentType != null) next.contentType = patch.contentType;
  if (patch.filename != null) next.filename = patch.filename;
  if (patch.updatedAt != null) next.updatedAt = patch.updatedAt;
  if (patch.url != null) {
    next.url = patch.url;
    next.text = null;
    next.contentBytes = null;
    next.version = current.version + 1;
  } else if (patch.content != null) {
    next.url = null;
    next.text = extractText(patch.content, next.contentType);
    next.contentBytes = byteLength(patch.content);
    next.version = current.version + 1;
  }
  if (patch.displayName != null && patch.displayName !== '') {
    next.displayName = patch.displayName;
  } else if (patch.url != null && current.displayName === (current.url ? filenameOfUrl(current.url) : undefined)) {
    // A name that was derived from the old URL follows the new one.
    next.displayName = defaultDisplayName({ filename: patch.filename, url: patch.url }, remoteId);
  }
  return next;
}

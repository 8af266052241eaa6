/**
 * One raw RFC 5322 message (the bytes between two mbox separators) decoded
 * with postal-mime: encoded-word headers (`=?ISO-8859-1?Q?Caf=E9?=`),
 * multipart bodies without their boundaries, quoted-printable and base64 in
 * any declared charset. The address lists keep ferry's own parser, which
 * knows the odd forms old mailboxes hold (X.500 names, empty groups), with
 * encoded-word names decoded.
 */
import PostalMime, { decodeWords } from 'postal-mime';
import type { Attachment } from 'postal-mime';
import { parseAddressList } from './address.js';
import type { Address } from './address.js';

/** An attachment's metadata (and, when asked for, its bytes base64-encoded). */
export type MailAttachment = {
  name: string;
  mimeType: string;
  sizeBytes: number;
  /** `inline` (an image the HTML shows) or `attachment`, as the part says. */
  disposition: string | null;
  contentId: string | null;
  /** The bytes, base64: only when the source was asked for attachment documents. */
  content?: string;
};

export interface DecodedMessage {
  /** Lower-cased header names; repeated headers joined with `, `; values as written (unfolded). */
  headers: Record<string, string>;
  subject: string;
  from: Address[];
  to: Address[];
  cc: Address[];
  bcc: Address[];
  /** The plain-text body (from the text/plain part, else the text of the HTML part). */
  body: string;
  /** The HTML part, when the message has one. */
  html: string | null;
  attachments: MailAttachment[];
}

/** With `withContent`, attachments carry their bytes (base64); otherwise only their metadata is kept. */
export async function decodeMessage(raw: Uint8Array, options: { withContent?: boolean } = {}): Promise<DecodedMessage> {
  const email = await PostalMime.parse(raw, { attachmentEncoding: options.withContent ? 'base64' : 'arraybuffer' });
  const headers: Record<string, string> = {};
  for (const { key, line } of email.headerLines) {
    // Unfolded with one space per fold, as the header lines read.
    const value = line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  const addresses = (name: string) => parseAddressList(headers[name] ?? '').map((a) => ({ ...a, name: a.name === null ? null : decodeWords(a.name) }));
  const text = email.text ?? (email.html === undefined ? '' : htmlAsText(email.html));
  return {
    headers,
    subject: decodeWords(headers.subject ?? ''),
    from: addresses('from'),
    to: addresses('to'),
    cc: addresses('cc'),
    bcc: addresses('bcc'),
    // The separator line before the next message is part of the format, not the body.
    body: text.replace(/(\r?\n)+$/, ''),
    html: email.html === undefined ? null : email.html.replace(/(\r?\n)+$/, ''),
    attachments: email.attachments.map((a, index) => attachmentOf(a, index, options.withContent === true)),
  };
}

function attachmentOf(part: Attachment, index: number, withContent: boolean): MailAttachment {
  const content = part.content;
  const sizeBytes = typeof content === 'string' ? Buffer.byteLength(content, part.encoding === 'base64' ? 'base64' : 'utf8') : content.byteLength;
  const name = part.filename ?? `attachment-${index + 1}${part.mimeType === 'message/rfc822' ? '.eml' : ''}`;
  const meta: MailAttachment = { name, mimeType: part.mimeType, sizeBytes, disposition: part.disposition, contentId: part.contentId ?? null };
  if (withContent) meta.content = typeof content === 'string' ? (part.encoding === 'base64' ? content : Buffer.from(content).toString('base64')) : Buffer.from(content as ArrayBuffer).toString('base64');
  return meta;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** An HTML-only message's text: block ends become line breaks, tags go, common entities are decoded. */
function htmlAsText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h[1-6])>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|[a-z]+);/gi, (whole, name: string) =>
      name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : (ENTITIES[name.toLowerCase()] ?? whole),
    )
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

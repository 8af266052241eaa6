/**
 * A decoded e-mail as the record every mail source (mbox, eml, maildir)
 * yields, and their default mappings: the message as a MessageRequest (sender,
 * To and Cc as recipients, subject, plain-text body, thread), or each of its
 * attachments as a DocumentRequest with its content.
 */
import type { TargetDefaults } from '../../../../src/sdk/index.js';
import { nameId } from '../person-id.js';
import type { Address } from './address.js';
import type { DecodedMessage, MailAttachment } from './message.js';

/** A Person of the service: an e-mail, or else an id from the name. */
export type MailPerson = { id?: string; name: string | null; email: string | null };

export function personOf(address: Address): MailPerson | undefined {
  if (address.email) return { name: address.name, email: address.email };
  if (address.name) return { id: nameId(address.name), name: address.name, email: null };
  return undefined;
}

/** Message ids of a header (`<a@x> <b@y>`), without their angle brackets. */
export function messageIds(header: string | undefined): string[] {
  if (!header) return [];
  const bracketed = [...header.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]!);
  return bracketed.length > 0 ? bracketed : header.split(/[\s,]+/).filter((id) => id !== '');
}

/** `Mon, 31 Dec 1979 16:00:00 -0800 (PST)` → ISO 8601 UTC, or null when it does not parse. */
export function mailDate(header: string | undefined): string | null {
  if (!header) return null;
  const ms = Date.parse(header.replace(/\s*\([^)]*\)\s*$/, ''));
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

export type MailRecordAttachment = MailAttachment & { url: string | null };

/**
 * `attachmentUrl`'s `{messageId}`, `{name}` and `{index}` filled in (each
 * URL-encoded): where the attachment can be fetched, which the service's
 * Attachment requires. Null without a template.
 */
export function attachmentUrl(template: string | undefined, messageId: string, attachment: MailAttachment, index: number): string | null {
  if (!template) return null;
  const values: Record<string, string> = { messageId, name: attachment.name, index: String(index + 1) };
  return template.replace(/\{(messageId|name|index)\}/g, (_, key: string) => encodeURIComponent(values[key]!));
}

/**
 * The record's fields. `id` is the Message-ID, or `fallbackId` (the file's
 * own name) for a message without one; `threadId` is the first of
 * References, else In-Reply-To, else the message's own id (RFC 5322 §3.6.4).
 */
export function mailData(message: DecodedMessage, where: { fallbackId: string | null; attachmentUrl?: string | undefined }) {
  const { headers } = message;
  const messageId = messageIds(headers['message-id'])[0] ?? null;
  const id = messageId ?? where.fallbackId;
  const references = messageIds(headers.references);
  const inReplyTo = messageIds(headers['in-reply-to'])[0] ?? null;
  const sender = message.from.map(personOf).find((p) => p !== undefined) ?? null;
  const recipients = [...message.to, ...message.cc].map(personOf).filter((p): p is MailPerson => p !== undefined);
  const attachments: MailRecordAttachment[] = message.attachments.map((a, i) => ({ ...a, url: id ? attachmentUrl(where.attachmentUrl, id, a, i) : null }));
  return {
    id,
    messageId,
    date: mailDate(headers.date),
    subject: message.subject,
    from: message.from,
    to: message.to,
    cc: message.cc,
    bcc: message.bcc,
    sender,
    recipients,
    threadId: references[0] ?? inReplyTo ?? id,
    inReplyTo,
    references,
    body: message.body,
    html: message.html,
    attachments,
    headers,
  };
}
export type MailData = ReturnType<typeof mailData>;

/** Records of attachment documents: one per attachment, its id the message's id and its position. */
export function attachmentRecords(data: MailData): { id: string; messageId: string | null; name: string; mimeType: string; sizeBytes: number; content: string; date: string | null; subject: string; sender: MailPerson | null }[] {
  if (!data.id) return [];
  return data.attachments.map((a, i) => ({
    id: `${data.id}/${i + 1}`,
    messageId: data.messageId,
    name: a.name,
    mimeType: a.mimeType,
    sizeBytes: a.sizeBytes,
    content: a.content ?? '',
    date: data.date,
    subject: data.subject,
    sender: data.sender,
  }));
}

/** Message fields every mail record has, for discover(). */
export const MAIL_FIELDS = [
  { name: 'id', type: 'string' },
  { name: 'messageId', type: 'string' },
  { name: 'date', type: 'datetime' },
  { name: 'subject', type: 'string' },
  { name: 'from', type: 'list' },
  { name: 'to', type: 'list' },
  { name: 'cc', type: 'list' },
  { name: 'bcc', type: 'list' },
  { name: 'sender', type: 'string' },
  { name: 'recipients', type: 'list' },
  { name: 'threadId', type: 'string' },
  { name: 'inReplyTo', type: 'string' },
  { name: 'references', type: 'list' },
  { name: 'body', type: 'textarea' },
  { name: 'html', type: 'textarea' },
  { name: 'attachments', type: 'list' },
] as const;

export const ATTACHMENT_FIELDS = [
  { name: 'id', type: 'string' },
  { name: 'messageId', type: 'string' },
  { name: 'name', type: 'string' },
  { name: 'mimeType', type: 'string' },
  { name: 'sizeBytes', type: 'int' },
  { name: 'content', type: 'textarea' },
  { name: 'date', type: 'datetime' },
  { name: 'subject', type: 'string' },
] as const;

/** An e-mail as a MessageRequest; attachments only where `attachmentUrl` gave them a URL (the service needs one). */
export const MESSAGE_DEFAULTS: TargetDefaults = Object.freeze({
  map: Object.freeze({
    id: 'id',
    displayName: 'subject',
    body: 'body',
    createdAt: 'date',
    sender: 'sender',
    recipients: 'recipients',
    threadId: 'threadId',
    attachments: '[attachments[url].{ "name": name, "url": url, "mimeType": mimeType, "sizeBytes": sizeBytes }]',
    public: true,
  }),
});

/** An attachment (records: attachments) as a DocumentRequest with its content. */
export const ATTACHMENT_DEFAULTS: TargetDefaults = Object.freeze({
  map: Object.freeze({
    id: 'id',
    displayName: 'name',
    filename: 'name',
    content: 'content',
    contentType: 'mimeType',
    createdAt: 'date',
    public: true,
  }),
});

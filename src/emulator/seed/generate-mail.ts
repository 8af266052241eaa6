/**
 * E-mails from the Enron mbox files (`enron-mbox/`) as native mailbox
 * messages. Follows the dataset's quirks: the date comes from the `Date`
 * header (the mbox `From ` line is the conversion time), quoted-printable
 * bodies are decoded only where declared, `>From ` is unescaped, the many
 * copies of one mail across folders are collapsed to one message, and
 * threads are rebuilt from subjects (there are no threading headers).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeQuotedPrintable, parseAddressList, type Address } from '../../../connectors/sources/_shared/mail/address.js';
import type { SeedMessageInput } from './format.js';

export interface RawMail {
  folder: string;
  headers: Record<string, string>;
  body: string;
}

/** Split an mbox file into messages with unfolded, lower-cased headers and a decoded body. */
export function parseMbox(text: string, folder: string): RawMail[] {
  const mails: RawMail[] = [];
  const lines = text.split(/\r?\n/);
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    const block = lines.slice(start + 1, end);
    const blank = block.indexOf('');
    const headerLines = blank < 0 ? block : block.slice(0, blank);
    const bodyLines = blank < 0 ? [] : block.slice(blank + 1);
    while (bodyLines.length > 0 && bodyLines[bodyLines.length - 1] === '') bodyLines.pop();
    const headers: Record<string, string> = {};
    let current: string | undefined;
    for (const line of headerLines) {
      if (/^[ \t]/.test(line) && current) {
        headers[current] += ` ${line.trim()}`;
        continue;
      }
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      current = line.slice(0, colon).trim().toLowerCase();
      headers[current] = line.slice(colon + 1).trim();
    }
    let body = bodyLines.map((l) => l.replace(/^>(>*From )/, '$1')).join('\n');
    if ((headers['content-transfer-encoding'] ?? '').toLowerCase() === 'quoted-printable') body = decodeQuotedPrintable(body);
    mails.push({ folder, headers, body });
  };
  lines.forEach((line, i) => {
    if (line.startsWith('From ') && (i === 0 || lines[i - 1] === '')) {
      flush(i);
      start = i;
    }
  });
  flush(lines.length);
  return mails;
}

/** `Re: FW: Budget` → `budget`: the subject a thread shares. */
export function threadSubject(subject: string): string {
  let s = subject.trim().toLowerCase();
  for (;;) {
    const next = s.replace(/^(re|fw|fwd|aw)\s*(\[\d+\])?\s*:\s*/i, '').trim();
    if (next === s) return s.replace(/\s+/g, ' ');
    s = next;
  }
}

/** `Allen, Phillip K. </O=ENRON/...>` → `Phillip K. Allen`; `"Buckner, Buck" <x@y> @ ENRON` → `Buck Buckner`. */
export function displayName(xFrom: string | undefined): string | null {
  if (!xFrom) return null;
  const name = xFrom.replace(/<[^>]*>/g, '').replace(/@\s*ENRON.*$/i, '').replace(/"/g, '').trim();
  const comma = /^([^,]+),\s*(.+)$/.exec(name);
  const full = comma ? `${comma[2]} ${comma[1]}` : name;
  return full.trim() || null;
}

const ATTACHMENT_LINE = /^\s*(?:- )?([^<>:"/\\|?*\n]{1,80}\.(xlsx?|docx?|pdf|pptx?|zip|csv|txt))\s*$/i;
const ATTACHMENT_TYPES: Record<string, string> = {
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pdf: 'application/pdf',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip',
  csv: 'text/csv',
  txt: 'text/plain',
};

/** Only the file names survive in the corpus: a line holding nothing but one (` - budget.xls`) was an attachment. */
export function attachmentsOf(body: string): { filename: string; contentType: string | null; size: null }[] {
  const seen = new Set<string>();
  const found: { filename: string; contentType: string | null; size: null }[] = [];
  for (const line of body.split('\n')) {
    const m = ATTACHMENT_LINE.exec(line);
    const filename = m?.[1]?.trim();
    if (!filename || seen.has(filename.toLowerCase())) continue;
    seen.add(filename.toLowerCase());
    found.push({ filename, contentType: ATTACHMENT_TYPES[(m?.[2] ?? '').toLowerCase()] ?? null, size: null });
  }
  return found;
}

const withEmail = (list: Address[]) => list.filter((a) => a.email !== null);

export interface MailOptions {
  /** Newest messages to keep after de-duplication. @default all */
  messageLimit?: number | undefined;
}

export function generateMessages(dir: string, options: MailOptions = {}): SeedMessageInput[] {
  const base = join(dir, 'enron-mbox');
  const files = readdirSync(base).filter((f) => !f.startsWith('.')).sort();
  const seen = new Set<string>();
  const messages: SeedMessageInput[] = [];
  for (const file of files) {
    const folder = file.replace(/^enron\.[^.]+\./, '');
    for (const mail of parseMbox(readFileSync(join(base, file), 'utf8'), folder)) {
      const h = mail.headers;
      const date = Date.parse((h.date ?? '').replace(/\s*\([^)]*\)\s*$/, ''));
      if (Number.isNaN(date)) continue;
      // The same mail sits in up to four folders under different Message-IDs.
      const fingerprint = createHash('sha1').update(JSON.stringify([h.date, h.from, h.subject, mail.body])).digest('hex');
      if (seen.has(fingerprint)) continue;
      seen.add(fingerprint);
      const sender = parseAddressList(h.from ?? '')[0];
      const recipients: Address[] = [];
      for (const r of withEmail([...parseAddressList(h.to ?? ''), ...parseAddressList(h.cc ?? '')])) {
        if (!recipients.some((x) => x.email?.toLowerCase() === r.email?.toLowerCase())) recipients.push(r);
      }
      const subject = h.subject ?? '';
      const thread = threadSubject(subject);
      messages.push({
        // Exchange (.pst) exports come from Outlook; the Lotus Notes (.nsf) ones stand in for a Gmail mailbox.
        sourceId: /\.pst$/i.test(h['x-filename'] ?? '') ? 'outlook' : 'gmail',
        remoteId: (h['message-id'] ?? '').replace(/^<|>$/g, '') || fingerprint,
        threadId: thread === '' ? null : `thread-${createHash('sha1').update(thread).digest('hex').slice(0, 16)}`,
        subject: subject === '' ? null : subject,
        sender: sender?.email ? { name: displayName(h['x-from']) ?? sender.name, email: sender.email } : null,
        recipients: recipients.map((r) => ({ name: r.name, email: r.email })),
        body: mail.body,
        createdAt: new Date(date).toISOString(),
        attachments: attachmentsOf(mail.body),
      });
    }
  }
  // Newest first, so a limit keeps a coherent recent slice of the mailbox.
  messages.sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)) || String(a.remoteId).localeCompare(String(b.remoteId)));
  return messages.slice(0, options.messageLimit ?? messages.length);
}

/** A parsed MessageRequest → what the store keeps. */
import type { z } from 'zod';
import type { messageRequest } from '../../api/schemas/write.js';
import { stableUuid } from '../app.js';
import type { MessageData, PartyData } from '../store/types.js';

export type ParsedMessage = z.output<typeof messageRequest>;

const party = (p: { name?: string | null; email?: string | null }): PartyData => ({ name: p.name ?? null, email: p.email ?? null });

export function messageData(body: ParsedMessage, recordKey: readonly string[]): MessageData {
  return {
    threadId: body.threadId ?? null,
    subject: body.displayName === '' ? null : body.displayName,
    sender: party(body.sender),
    recipients: body.recipients.map(party),
    body: body.body,
    createdAt: body.createdAt,
    attachments: (body.attachments ?? []).map((a, i) => ({
      id: stableUuid(...recordKey, 'attachment', String(i), a.url),
      filename: a.name,
      contentType: a.mimeType ?? null,
      size: a.sizeBytes ?? null,
      url: a.url,
    })),
  };
}

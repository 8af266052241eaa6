/** Options the file-per-message mail sources (eml, maildir) share. */
import { z } from 'zod';
import { maxFileBytesOption } from '../whole-file.js';

export const mailOptions = {
  records: z
    .enum(['messages', 'attachments'])
    .default('messages')
    .describe('messages: one record per e-mail (default mapping: message); attachments: one record per attachment with its content base64 (default mapping: document).'),
  attachmentUrl: z
    .string()
    .min(1)
    .optional()
    .describe('Where attachments can be fetched, with {messageId}, {name} and {index} filled in (e.g. https://mail.example.com/{messageId}/{name}). The service needs a URL for a message attachment; without one, attachments stay metadata in the record and are not mapped.'),
  maxFileBytes: maxFileBytesOption,
};

export type MailRecordsMode = 'messages' | 'attachments';

/**
 * Maildir mailboxes (and Maildir++ subfolders): one record per message file
 * in `cur/` and `new/`, decoded as the eml and mbox sources decode theirs
 * (connectors/sources/_shared/mail), with the folder, the state and the
 * flags the file name carries. Default mappings: message (or document).
 */
import { relative } from 'node:path';
import { z } from 'zod';
import { InputProblems } from '../_shared/input-problems.js';
import { mailOptions } from '../_shared/mail/options.js';
import { readMailFile } from '../_shared/mail/read-file.js';
import { ATTACHMENT_DEFAULTS, ATTACHMENT_FIELDS, MAIL_FIELDS, MESSAGE_DEFAULTS } from '../_shared/mail/record.js';
import { FerryError, compareCursorValues, defineSource } from '../../../src/sdk/index.js';
import { maildirs, messagesOf } from './folders.js';

const options = z.strictObject({
  path: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('A Maildir (the folder holding cur/, new/ and tmp/), a glob or a list of globs, relative to the YAML file.'),
  subfolders: z.boolean().default(true).describe('Also read Maildir++ subfolders (.Sent, .Archive.2020) inside each Maildir; their name is the record\'s folder.'),
  ...mailOptions,
});

export default defineSource({
  name: 'maildir',
  options,
  example: { path: 'Maildir' },

  targetDefaults: (opts) => (opts.records === 'attachments' ? { document: ATTACHMENT_DEFAULTS } : { message: MESSAGE_DEFAULTS }),
  keys: () => ({ primaryKey: ['id'], cursorField: 'modifiedAt' }),

  async discover(ctx) {
    const fields = ctx.options.records === 'attachments' ? ATTACHMENT_FIELDS : MAIL_FIELDS;
    return [
      {
        name: String(ctx.options.path),
        primaryKey: ['id'],
        cursorCandidates: ['modifiedAt'],
        fields: [
          ...fields,
          { name: 'folder', type: 'string' },
          { name: 'state', type: 'string' },
          { name: 'flags', type: 'list' },
          { name: 'file', type: 'string' },
          { name: 'modifiedAt', type: 'datetime' },
        ],
      },
    ];
  },

  async *read(ctx) {
    const folders = await maildirs(ctx.options.path, ctx.baseDir, ctx.options.subfolders);
    if (folders.length === 0) {
      throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `no Maildir (a folder with cur/ or new/) matches ${JSON.stringify(ctx.options.path)}`, { where: `sync ${ctx.syncName}`, hint: `paths resolve against ${ctx.baseDir}` });
    }
    const stream = String(ctx.options.path);
    const problems = new InputProblems(ctx, stream);
    const after = ctx.incremental?.after;
    const isNew = after ? (cursor: string) => compareCursorValues(cursor, after.value) > 0 : undefined;
    for (const folder of folders) {
      for (const message of await messagesOf(folder)) {
        if (ctx.signal.aborted) return;
        const rel = relative(ctx.baseDir, message.path);
        const extra = { folder: message.folder, state: message.state, flags: message.flags };
        yield* readMailFile({ path: message.path, rel, stream, fallbackId: `${message.folder}/${message.unique}`, extra }, { ...ctx.options, derivation: 'maildir/1' }, problems, isNew);
        problems.finishFile(rel);
      }
    }
  },
});

/**
 * E-mails saved one per file (`.eml`, RFC 5322), decoded with postal-mime as
 * the mbox source decodes its messages (connectors/sources/_shared/mail):
 * one record per message, or per attachment with `records: attachments`.
 * Default mappings: message (or document for attachments).
 */
import { relative } from 'node:path';
import { z } from 'zod';
import { listFiles } from '../_shared/files.js';
import { InputProblems } from '../_shared/input-problems.js';
import { mailOptions } from '../_shared/mail/options.js';
import { readMailFile } from '../_shared/mail/read-file.js';
import { ATTACHMENT_DEFAULTS, ATTACHMENT_FIELDS, MAIL_FIELDS, MESSAGE_DEFAULTS } from '../_shared/mail/record.js';
import { FerryError, compareCursorValues, defineSource } from '../../../src/sdk/index.js';

const options = z.strictObject({
  path: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('An .eml file, a glob or a list of globs, relative to the YAML file (e.g. mail/**/*.eml).'),
  ...mailOptions,
});

export default defineSource({
  name: 'eml',
  options,
  example: { path: 'mail/*.eml' },

  targetDefaults: (opts) => (opts.records === 'attachments' ? { document: ATTACHMENT_DEFAULTS } : { message: MESSAGE_DEFAULTS }),
  keys: () => ({ primaryKey: ['id'], cursorField: 'modifiedAt' }),

  async discover(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    const fields = ctx.options.records === 'attachments' ? ATTACHMENT_FIELDS : MAIL_FIELDS;
    return [
      {
        name: String(ctx.options.path),
        primaryKey: ['id'],
        cursorCandidates: ['modifiedAt'],
        fields: [...fields, { name: 'file', type: 'string' }, { name: 'modifiedAt', type: 'datetime' }],
        ...(ctx.options.records === 'messages' ? { estimatedCount: files.length } : {}),
      },
    ];
  },

  async *read(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    if (files.length === 0) {
      throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `no .eml files match ${JSON.stringify(ctx.options.path)}`, { where: `sync ${ctx.syncName}`, hint: `paths resolve against ${ctx.baseDir}` });
    }
    const stream = String(ctx.options.path);
    const problems = new InputProblems(ctx, stream);
    const after = ctx.incremental?.after;
    const isNew = after ? (cursor: string) => compareCursorValues(cursor, after.value) > 0 : undefined;
    for (const path of files) {
      if (ctx.signal.aborted) return;
      const rel = relative(ctx.baseDir, path);
      yield* readMailFile({ path, rel, stream, fallbackId: rel.split('\\').join('/'), extra: {} }, { ...ctx.options, derivation: 'eml/1' }, problems, isNew);
      problems.finishFile(rel);
    }
  },
});

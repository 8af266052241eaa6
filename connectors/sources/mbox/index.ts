/**
 * E-mails from mbox files, streamed line by line: one record per message with
 * its parsed headers, addresses and decoded plain-text body (MIME decoding in
 * ./message.ts). The mbox `From `
 * separator line carries the mailbox writer's date, not the message's, so
 * `date` comes from the `Date:` header.
 */
import { createReadStream } from 'node:fs';
import { relative } from 'node:path';
import { createGunzip } from 'node:zlib';
import { z } from 'zod';
import { listFiles } from '../_shared/files.js';
import { FerryError, compareCursorValues, defineSource } from '../../../src/sdk/index.js';
import type { SourceRecord } from '../../../src/sdk/index.js';
import { decodeMessage } from '../_shared/mail/message.js';
import { MAIL_FIELDS, MESSAGE_DEFAULTS, mailData } from '../_shared/mail/record.js';

const options = z.strictObject({
  path: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).describe('An mbox file or a glob of them, relative to the YAML file.'),
});

export default defineSource({
  name: 'mbox',
  options,
  example: { path: 'mail/*.mbox' },
  targetDefaults: () => ({ message: MESSAGE_DEFAULTS }),

  async discover(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    return [
      {
        name: String(ctx.options.path),
        primaryKey: ['messageId'],
        cursorCandidates: ['date'],
        fields: [...MAIL_FIELDS, { name: 'folder', type: 'string' }, { name: 'file', type: 'string' }],
        ...(files.length === 0 ? { estimatedCount: 0 } : {}),
      },
    ];
  },

  async *read(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    if (files.length === 0) {
      throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `no mbox files match ${JSON.stringify(ctx.options.path)}`, {
        where: `sync ${ctx.syncName}`,
        hint: `paths resolve against ${ctx.baseDir}`,
      });
    }
    const after = ctx.incremental?.after;
    for (const file of files) {
      for await (const record of readMbox(file, relative(ctx.baseDir, file), String(ctx.options.path))) {
        if (ctx.signal.aborted) return;
        if (after && record.cursor != null && compareCursorValues(record.cursor, after.value) <= 0) continue;
        yield record;
      }
    }
  },
});

const NEWLINE = 0x0a;
const FROM = Buffer.from('From ');
const QUOTED_FROM = /^>+From /;

interface Draft {
  line: number;
  lines: Buffer[];
}

/**
 * Split an mbox into raw messages at `From ` lines that follow a blank line,
 * on bytes (a message's charset is only known once its headers are read),
 * unescaping one `>` of `>From ` lines.
 */
async function* readMbox(path: string, rel: string, stream: string): AsyncIterable<SourceRecord> {
  const input = createReadStream(path);
  let draft: Draft | undefined;
  let lineNo = 0;
  let previousBlank = true;
  /** Takes one line; returns the message it completed, if any. */
  const onLine = (line: Buffer): Draft | undefined => {
    lineNo++;
    let finished: Draft | undefined;
    if (previousBlank && line.subarray(0, FROM.length).equals(FROM)) {
      finished = draft;
      draft = { line: lineNo, lines: [] };
    } else if (draft) {
      draft.lines.push(line[0] === 0x3e && QUOTED_FROM.test(line.subarray(0, 64).toString('latin1')) ? line.subarray(1) : line);
    }
    previousBlank = line.length === 0 || (line.length === 1 && line[0] === 0x0d);
    return finished;
  };
  let rest = Buffer.alloc(0);
  for await (const chunk of path.endsWith('.gz') ? input.pipe(createGunzip()) : input) {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    for (let end = data.indexOf(NEWLINE, start); end >= 0; end = data.indexOf(NEWLINE, start)) {
      const finished = onLine(data.subarray(start, end));
      start = end + 1;
      if (finished) yield await toRecord(finished, rel, stream);
    }
    // Copied: a view would keep the whole chunk alive.
    rest = Buffer.from(data.subarray(start));
  }
  if (rest.length > 0) {
    const finished = onLine(rest);
    if (finished) yield await toRecord(finished, rel, stream);
  }
  if (draft) yield await toRecord(draft, rel, stream);
}

async function toRecord(draft: Draft, file: string, stream: string): Promise<SourceRecord> {
  const raw = Buffer.concat(draft.lines.flatMap((line) => [line, Buffer.from([NEWLINE])]));
  const message = await decodeMessage(raw);
  // A message without a Message-ID is known by its place in the mailbox.
  const mail = mailData(message, { fallbackId: `${file}:${draft.line}` });
  const data = { ...mail, folder: message.headers['x-folder'] ?? null, file };
  const { messageId } = mail;
  return { data, origin: { stream, file, line: draft.line, ...(messageId ? { key: messageId } : {}) }, cursor: mail.date };
}

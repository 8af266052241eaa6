/**
 * E-mails from mbox files, streamed line by line: one record per message with
 * its parsed headers, addresses and decoded plain-text body. The mbox `From `
 * separator line carries the mailbox writer's date, not the message's, so
 * `date` comes from the `Date:` header.
 */
import { createReadStream } from 'node:fs';
import { relative } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { z } from 'zod';
import { listFiles } from '../_shared/files.js';
import { FerryError, compareCursorValues, defineSource } from '../../src/sdk/index.js';
import type { SourceRecord } from '../../src/sdk/index.js';
import { decodeQuotedPrintable, parseAddressList } from './parse.js';

const options = z.strictObject({
  /** An mbox file or a glob of them, relative to the YAML file. */
  path: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
});

export default defineSource({
  name: 'mbox',
  options,
  example: { path: 'mail/*.mbox' },

  async discover(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    return [
      {
        name: String(ctx.options.path),
        primaryKey: ['messageId'],
        cursorCandidates: ['date'],
        fields: [
          { name: 'messageId', type: 'string' },
          { name: 'date', type: 'datetime' },
          { name: 'subject', type: 'string' },
          { name: 'from', type: 'list' },
          { name: 'to', type: 'list' },
          { name: 'cc', type: 'list' },
          { name: 'bcc', type: 'list' },
          { name: 'body', type: 'textarea' },
          { name: 'folder', type: 'string' },
          { name: 'file', type: 'string' },
        ],
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

interface Draft {
  line: number;
  headerLines: string[];
  bodyLines: string[];
  inBody: boolean;
}

async function* readMbox(path: string, rel: string, stream: string): AsyncIterable<SourceRecord> {
  const input = createReadStream(path);
  const lines = createInterface({ input: path.endsWith('.gz') ? input.pipe(createGunzip()) : input, crlfDelay: Infinity });
  let draft: Draft | undefined;
  let lineNo = 0;
  let previousBlank = true;
  for await (const line of lines) {
    lineNo++;
    if (line.startsWith('From ') && previousBlank) {
      if (draft) yield toRecord(draft, rel, stream);
      draft = { line: lineNo, headerLines: [], bodyLines: [], inBody: false };
      previousBlank = false;
      continue;
    }
    previousBlank = line === '';
    if (!draft) continue;
    if (!draft.inBody) {
      if (line === '') draft.inBody = true;
      else draft.headerLines.push(line);
    } else {
      draft.bodyLines.push(line);
    }
  }
  if (draft) yield toRecord(draft, rel, stream);
}

function toRecord(draft: Draft, file: string, stream: string): SourceRecord {
  const headers: Record<string, string> = {};
  let current: string | undefined;
  for (const line of draft.headerLines) {
    if (/^[ \t]/.test(line) && current) {
      headers[current] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    current = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[current] = headers[current] === undefined ? value : `${headers[current]}, ${value}`;
  }
  // The separator line before the next message is part of the format, not the body.
  while (draft.bodyLines.length > 0 && draft.bodyLines[draft.bodyLines.length - 1] === '') draft.bodyLines.pop();
  let body = draft.bodyLines.map((l) => l.replace(/^>(>*From )/, '$1')).join('\n');
  if ((headers['content-transfer-encoding'] ?? '').toLowerCase() === 'quoted-printable') body = decodeQuotedPrintable(body);
  const parsedDate = headers.date ? Date.parse(headers.date.replace(/\s*\([^)]*\)\s*$/, '')) : Number.NaN;
  const date = Number.isNaN(parsedDate) ? null : new Date(parsedDate).toISOString();
  const messageId = (headers['message-id'] ?? '').replace(/^<|>$/g, '') || null;
  const data = {
    messageId,
    date,
    subject: headers.subject ?? '',
    from: parseAddressList(headers.from ?? ''),
    to: parseAddressList(headers.to ?? ''),
    cc: parseAddressList(headers.cc ?? ''),
    bcc: parseAddressList(headers.bcc ?? ''),
    body,
    folder: headers['x-folder'] ?? null,
    file,
    headers,
  };
  return { data, origin: { stream, file, line: draft.line, ...(messageId ? { key: messageId } : {}) }, cursor: date };
}

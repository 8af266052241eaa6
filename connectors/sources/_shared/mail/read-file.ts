/**
 * One message file (an .eml, a Maildir entry) → its records: the message,
 * or its attachments. A file over the size cap or one postal-mime cannot
 * parse is skipped and reported with its path; the run goes on.
 */
import { createHash } from 'node:crypto';
import type { SourceData, SourceRecord } from '../../../../src/sdk/index.js';
import { messageOf } from '../../../../src/sdk/index.js';
import type { InputProblems } from '../input-problems.js';
import { readWholeFile } from '../whole-file.js';
import { decodeMessage } from './message.js';
import type { MailRecordsMode } from './options.js';
import { attachmentRecords, mailData } from './record.js';

export interface MailFile {
  path: string;
  /** Relative to the config: origins, messages and the fallback id. */
  rel: string;
  stream: string;
  /** The id of a message without a Message-ID. */
  fallbackId: string;
  /** Fields of the file's place (folder, Maildir flags) added to the message's. */
  extra: SourceData;
}

export interface MailReadOptions {
  records: MailRecordsMode;
  attachmentUrl?: string | undefined;
  maxFileBytes: number;
  /** A version of how records follow from a file, part of dataText. */
  derivation: string;
}

export async function* readMailFile(file: MailFile, options: MailReadOptions, problems: InputProblems, after: ((cursor: string) => boolean) | undefined): AsyncIterable<SourceRecord> {
  const read = await readWholeFile(file.path, options.maxFileBytes);
  if ('tooLarge' in read) {
    problems.report(file.rel, { line: 1, action: 'skipped', reason: `the message is ${read.tooLarge} bytes, over maxFileBytes (${options.maxFileBytes}); not read` });
    return;
  }
  const modifiedAt = read.modifiedAt.toISOString();
  if (after && !after(modifiedAt)) return;
  let decoded;
  try {
    decoded = await decodeMessage(read.bytes, { withContent: options.records === 'attachments' });
  } catch (error) {
    problems.report(file.rel, { line: 1, action: 'skipped', reason: `not a readable RFC 5322 message (${messageOf(error)})` });
    return;
  }
  // A field name is printable ASCII without a colon (RFC 5322 §2.2); postal-mime takes any first line for one.
  if (!Object.keys(decoded.headers).some((name) => /^[!-9;-~]+$/.test(name))) {
    problems.report(file.rel, { line: 1, action: 'skipped', reason: 'not an RFC 5322 message: no header fields before the body' });
    return;
  }
  const data = { ...mailData(decoded, { fallbackId: file.fallbackId, attachmentUrl: options.attachmentUrl }), ...file.extra, file: file.rel, modifiedAt };
  const basis = `${options.derivation}\u001f${JSON.stringify(file.extra)}\u001f${file.rel}\u001f${modifiedAt}\u001f${createHash('sha256').update(read.bytes).digest('hex')}`;
  if (options.records === 'messages') {
    yield { data, origin: { stream: file.stream, file: file.rel, line: 1, key: data.id ?? file.fallbackId }, cursor: modifiedAt, dataText: basis };
    return;
  }
  for (const attachment of attachmentRecords(data)) {
    yield { data: { ...attachment, file: file.rel, modifiedAt }, origin: { stream: file.stream, file: file.rel, line: 1, key: attachment.id }, cursor: modifiedAt, dataText: `${basis}\u001f${attachment.id}` };
  }
}

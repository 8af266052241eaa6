import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import mbox from '../../../connectors/sources/mbox/index.js';
import { decodeQuotedPrintable, parseAddressList } from '../../../connectors/sources/_shared/mail/address.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import { readAll, rejection, tempDir } from './helpers.js';

const ENRON = '/work/shared/datasets/enron-mbox';

function mailbox(text: string): string {
  const dir = tempDir('mbox');
  writeFileSync(join(dir, 'box.mbox'), text);
  return dir;
}

describe('mbox source on the Enron straw folder', () => {
  it('reads the 8 messages with their separator lines, folded To: and (PST) dates', async () => {
    const records = await readAll(mbox, { path: 'enron.allen-p.straw' }, { baseDir: ENRON });
    expect(records).toHaveLength(8);
    expect(records[0]?.origin).toEqual({ stream: 'enron.allen-p.straw', file: 'enron.allen-p.straw', line: 1, key: '2055670.1075855692881.JavaMail.evans@thyme' });
    expect(records[0]?.data).toMatchObject({
      date: '2000-02-10T09:46:00.000Z',
      subject: 'Re: Newsgroups',
      from: [{ name: null, email: 'billc@greenbuilder.com' }],
      folder: '\\Phillip_Allen_Dec2000\\Notes Folders\\Straw',
    });
    // The leading quote lines of a reply are body, not separators.
    expect(String(records[0]?.data.body)).toMatch(/^>What other cool newsgroups/);
    expect(records[1]?.data.to).toEqual([
      { name: null, email: 'mccormick@elkus-manfredi.com' },
      { name: null, email: 'kopp@kinneret.kinneret.co.il' },
      { name: null, email: 'strawbale@crest.org' },
    ]);
    expect(records[1]?.origin.line).toBe(37);
    // A forwarded message's headers inside a body stay in the body.
    const forwarded = records.find((r) => r.data.messageId === '23831327.1075855692946.JavaMail.evans@thyme');
    expect(forwarded?.data.subject).toBe('');
    expect(String(forwarded?.data.body)).toMatch(/Subject: RADIANT HEATING/);
  });
});

describe('mbox parsing', () => {
  const message = (headers: string, body: string) => `From MAILER-DAEMON Mon Apr 18 14:23:22 2022\n${headers}\n\n${body}\n\n`;

  it('unfolds folded headers and joins repeated ones', async () => {
    const dir = mailbox(message('Message-ID: <a@x>\nSubject: a long\n\tsubject line\n  folded twice\nTo: a@x.com\nTo: b@x.com', 'hi'));
    const [record] = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(record?.data.subject).toBe('a long subject line folded twice');
    expect(record?.data.to).toEqual([{ name: null, email: 'a@x.com' }, { name: null, email: 'b@x.com' }]);
  });

  it('decodes quoted-printable only when the message declares it', async () => {
    const body = 'caf=C3=A9 costs 5=3D5 and this line is soft-=\nbroken';
    const dir = mailbox(
      message('Message-ID: <qp@x>\nContent-Transfer-Encoding: quoted-printable', body) + message('Message-ID: <plain@x>\nContent-Transfer-Encoding: 7bit', body),
    );
    const [qp, plain] = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(qp?.data.body).toBe('café costs 5=5 and this line is soft-broken');
    expect(plain?.data.body).toBe(body);
  });

  it('unescapes >From lines once and keeps a From line that follows text as body', async () => {
    const dir = mailbox(message('Message-ID: <f@x>', '>From the desk of Phillip\n>>From a quote\nline one\nFrom here on it is body'));
    const records = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(records).toHaveLength(1);
    expect(records[0]?.data.body).toBe('From the desk of Phillip\n>From a quote\nline one\nFrom here on it is body');
  });

  it('parses address lists with quoted commas, comments and groups', () => {
    expect(parseAddressList('"Allen, Phillip K." <pallen@enron.com>, john@x.com (John Doe), <bare@x.com>, undisclosed-recipients:;')).toEqual([
      { name: 'Allen, Phillip K.', email: 'pallen@enron.com' },
      { name: 'John Doe', email: 'john@x.com' },
      { name: null, email: 'bare@x.com' },
      { name: 'undisclosed-recipients', email: null },
    ]);
    expect(parseAddressList('')).toEqual([]);
  });

  it('reads Date headers with a (PST) comment, and leaves an unreadable one null', async () => {
    const dir = mailbox(message('Message-ID: <d1@x>\nDate: Wed, 5 Jan 2000 13:24:00 -0800 (PST)', 'a') + message('Message-ID: <d2@x>\nDate: sometime soon', 'b'));
    const [dated, undated] = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(dated?.data.date).toBe('2000-01-05T21:24:00.000Z');
    expect(undated?.data.date).toBeNull();
  });

  it('decodes encoded-word headers and names, in their charsets', async () => {
    const dir = mailbox(
      message(
        'Message-ID: <ew@x>\nSubject: =?ISO-8859-1?Q?Caf=E9?= au lait\nFrom: =?UTF-8?B?SsO8cmdlbiBNw7xsbGVy?= <jm@x.com>\nTo: "Doe, J." <jd@x.com>',
        'hi',
      ),
    );
    const [record] = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(record?.data.subject).toBe('Café au lait');
    expect(record?.data.from).toEqual([{ name: 'Jürgen Müller', email: 'jm@x.com' }]);
    expect(record?.data.to).toEqual([{ name: 'Doe, J.', email: 'jd@x.com' }]);
  });

  it('takes the text part of a multipart message, without boundaries, in its quoted-printable charset', async () => {
    const body = [
      '--b1',
      'Content-Type: text/plain; charset=ISO-8859-1',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Caf=E9 cr=E8me',
      '--b1',
      'Content-Type: text/html; charset=UTF-8',
      '',
      '<p>Café crème</p>',
      '--b1--',
    ].join('\n');
    const dir = mailbox(message('Message-ID: <mp@x>\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="b1"', body));
    const [record] = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(record?.data.body).toBe('Café crème');
    expect(record?.data.html).toBe('<p>Café crème</p>');
  });

  it('decodes an 8-bit body in its declared charset, and gives the text of an HTML-only message', async () => {
    const dir = tempDir('mbox');
    const latin1 = Buffer.concat([
      Buffer.from(message('Message-ID: <l1@x>\nContent-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: 8bit', 'XX'), 'latin1'),
      Buffer.from(message('Message-ID: <h1@x>\nContent-Type: text/html', '<p>One &amp; two</p><p>three<br>four</p>'), 'utf8'),
    ]);
    const at = latin1.indexOf('XX');
    writeFileSync(join(dir, 'box.mbox'), Buffer.concat([latin1.subarray(0, at), Buffer.from('déjà vu', 'latin1'), latin1.subarray(at + 2)]));
    const [plain, html] = await readAll(mbox, { path: 'box.mbox' }, { baseDir: dir });
    expect(plain?.data.body).toBe('déjà vu');
    expect(html?.data.body).toBe('One & two\nthree\nfour');
  });

  it('decodes quoted-printable multi-byte sequences split by soft breaks', () => {
    expect(decodeQuotedPrintable('=E2=80=\n=94 dash')).toBe('— dash');
  });

  it('fails with FERRY_SOURCE_OBJECT_MISSING when nothing matches', async () => {
    const error = await rejection(readAll(mbox, { path: 'nothing/*.mbox' }, { baseDir: ENRON }));
    expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
  });
});

await describeSourceConformance(mbox, {
  title: 'mbox conformance: Enron straw folder',
  options: { path: 'enron.allen-p.straw' },
  baseDir: ENRON,
  expectedCount: 8,
  primaryKey: ['messageId'],
  cursorField: 'date',
});

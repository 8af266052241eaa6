import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import maildir from '../../../connectors/sources/maildir/index.js';
import { parseMaildirName } from '../../../connectors/sources/maildir/folders.js';
import { describeSourceConformance } from '../../../src/sdk/index.js';
import { readAll } from './helpers.js';

const MAIL = resolve(import.meta.dirname, '../../fixtures/mail');

await describeSourceConformance(maildir, { options: { path: 'Maildir' }, baseDir: MAIL, expectedCount: 5, primaryKey: ['id'], cursorField: 'modifiedAt' });

describe('maildir source', () => {
  it('reads new/ and cur/ (never tmp/) and Maildir++ subfolders, with the flags of each file name', async () => {
    const records = await readAll(maildir, { path: 'Maildir' }, { baseDir: MAIL });
    expect(records.map((r) => [r.data.folder, r.data.state, r.data.flags, r.data.subject])).toEqual([
      ['INBOX', 'new', [], 'Properties for sale'],
      ['INBOX', 'cur', ['seen'], ''],
      ['INBOX', 'cur', ['replied', 'seen'], 'Distribution Form'],
      ['INBOX', 'cur', ['flagged', 'seen'], 'Expense Reports Awaiting Your Approval'],
      ['Sent', 'cur', ['seen'], ''],
    ]);
    expect(records[2]?.data).toMatchObject({ id: '7617520.1075858644768.JavaMail.evans@thyme', sender: { email: 'renee.ratcliff@enron.com' }, recipients: [{ email: 'k..allen@enron.com' }] });
    const inboxOnly = await readAll(maildir, { path: 'Maildir', subfolders: false }, { baseDir: MAIL });
    expect(inboxOnly).toHaveLength(4);
  });

  it('parses Maildir file names', () => {
    expect(parseMaildirName('1700000000.M1P2.host:2,DRT')).toEqual({ unique: '1700000000.M1P2.host', flags: ['draft', 'replied', 'trashed'] });
    expect(parseMaildirName('1700000000.M1P2.host!2,S')).toEqual({ unique: '1700000000.M1P2.host', flags: ['seen'] });
    expect(parseMaildirName('1700000000.M1P2.host')).toEqual({ unique: '1700000000.M1P2.host', flags: [] });
  });
});

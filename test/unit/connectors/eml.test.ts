import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import eml from '../../../connectors/sources/eml/index.js';
import { messageIds } from '../../../connectors/sources/_shared/mail/record.js';
import { describeSourceConformance } from '../../../src/sdk/index.js';
import type { SkippedInput } from '../../../src/sdk/index.js';
import { readAll } from './helpers.js';

const MAIL = resolve(import.meta.dirname, '../../fixtures/mail');

await describeSourceConformance(eml, { options: { path: 'eml/*.eml' }, baseDir: MAIL, expectedCount: 5, primaryKey: ['id'], cursorField: 'modifiedAt' });

describe('eml source', () => {
  it('reads sender, To and Cc as recipients, an encoded-word subject, a quoted-printable body and attachment metadata', async () => {
    const [root] = await readAll(eml, { path: 'eml/thread-1-root.eml', attachmentUrl: 'https://files.example.org/{messageId}/{name}' }, { baseDir: MAIL });
    expect(root?.data).toMatchObject({
      id: 'root.1@example.org',
      date: '2024-10-01T07:00:00.000Z',
      subject: 'Plan für Q1',
      sender: { name: 'Lima, Ana', email: 'ana@example.org' },
      recipients: [
        { name: 'Bo Chen', email: 'bo@example.org' },
        { name: null, email: 'team@example.org' },
        { name: 'André Roy', email: 'andre@example.org' },
      ],
      body: 'Hi Bo,\n\nthe plan is attached. Café at 10?',
      threadId: 'root.1@example.org',
      attachments: [{ name: 'plan.csv', mimeType: 'text/csv', sizeBytes: 17, url: 'https://files.example.org/root.1%40example.org/plan.csv' }],
    });
    expect(root?.data.attachments).toEqual([expect.not.objectContaining({ content: expect.anything() })]);
  });

  it('threads replies on References, then In-Reply-To, and turns an HTML-only body into text', async () => {
    const records = await readAll(eml, { path: 'eml/thread-*.eml' }, { baseDir: MAIL });
    expect(records.map((r) => [r.data.id, r.data.threadId])).toEqual([
      ['root.1@example.org', 'root.1@example.org'],
      ['reply.2@example.org', 'root.1@example.org'],
      ['reply.3@example.org', 'root.1@example.org'],
    ]);
    expect(records[1]?.data.body).toBe('Looks good & approved.\nBo');
    expect(messageIds('<a@x>\r\n <b@y>')).toEqual(['a@x', 'b@y']);
  });

  it('reads Enron messages as they were written (folded X.500 names kept, (PDT) dates)', async () => {
    const [first] = await readAll(eml, { path: 'eml/enron-straw-1.eml' }, { baseDir: MAIL });
    expect(first?.data).toMatchObject({ id: '2055670.1075855692881.JavaMail.evans@thyme', date: '2000-02-10T09:46:00.000Z', subject: 'Re: Newsgroups', sender: { email: 'billc@greenbuilder.com' } });
  });

  it('yields attachments as documents with their content when asked', async () => {
    const records = await readAll(eml, { path: 'eml/thread-1-root.eml', records: 'attachments' }, { baseDir: MAIL });
    expect(records.map((r) => r.data)).toEqual([expect.objectContaining({ id: 'root.1@example.org/1', name: 'plan.csv', content: Buffer.from('week,goal\n1,ship\n').toString('base64') })]);
    expect(eml.targetDefaults?.(eml.options.parse({ path: 'x', records: 'attachments' }))).toHaveProperty('document');
  });

  it('skips (and reports) a file that is not a message, and one over maxFileBytes', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    const records = await readAll(eml, { path: 'eml-bad/*.eml' }, { baseDir: MAIL, captured });
    expect(records.map((r) => r.data.id)).toEqual(['eml-bad/no-id.eml']);
    expect(captured.skipped).toEqual([{ action: 'skipped', origin: { stream: 'eml-bad/*.eml', file: 'eml-bad/garbage.eml', line: 1 }, reason: expect.stringMatching(/not an RFC 5322 message/) }]);
    const big = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    expect(await readAll(eml, { path: 'eml/thread-1-root.eml', maxFileBytes: 10 }, { baseDir: MAIL, captured: big })).toEqual([]);
    expect(big.skipped[0]?.reason).toMatch(/over maxFileBytes/);
  });
});

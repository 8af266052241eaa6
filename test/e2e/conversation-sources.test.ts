/**
 * The conversation-native sources through the CLI against an emulator, with
 * no `map:` (their default mappings): what lands, what a re-run costs, what a
 * changed file re-pushes, and a transcript round trip (read back, written as
 * WebVTT, imported again: equal to itself).
 */
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/api/client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';
import type { CliResult } from './spawn-ferry.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');

interface Summary {
  syncs: { sync: string; counts: Record<string, number> }[];
}
const countsOf = (run: CliResult, sync: string) => (jsonOf(run) as Summary).syncs.find((s) => s.sync === sync)?.counts;

let emulator: RunningEmulator;
let client: ServiceClient;
beforeAll(async () => {
  emulator = await startEmulator({ db: ':memory:' });
  client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey! });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

function project(syncs: string, files: (dir: string) => void): { dir: string; env: Record<string, string> } {
  const dir = tempProjectDir('ferry-conv-');
  files(dir);
  writeFileSync(join(dir, 'ferry.yaml'), `version: 1\nservice: { baseUrl: ${emulator.url}, apiKey: "\${FERRY_API_KEY}" }\nsyncs:\n${syncs}`);
  return { dir, env: { FERRY_API_KEY: emulator.devKey! } };
}

async function conversationsOf(sourceName: string) {
  const { sources } = await client.listSources({ limit: 50 } as never);
  const source = (sources as { id: string; name: string }[]).find((s) => s.name === sourceName)!;
  const out = [];
  for await (const item of client.iterateConversations({ sourceId: source.id })) out.push(await client.getConversation((item as { conversationId: string }).conversationId));
  return out as unknown as Conversation[];
}

interface Conversation {
  title: string | null;
  startTime: string;
  endTime: string;
  participants: { name: string | null; email: string | null }[];
  transcript: { speaker: string; text: string; startTime: number; endTime: number }[] | null;
}

const clock = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
};

describe('transcript source (spawned)', () => {
  it('lands every transcript with no map:, re-runs for free, re-pushes a changed file, and round-trips through WebVTT', async () => {
    const { dir, env } = project(
      `  - name: meetings
    source: { type: transcript, path: "meetings/*" }
    target: { type: conversation, source: { name: meetings } }
  - name: again
    source: { type: transcript, path: "again/*.vtt" }
    target: { type: conversation, source: { name: again } }
`,
      (d) => {
        cpSync(join(FIXTURES, 'transcript'), join(d, 'meetings'), { recursive: true });
        cpSync(join(FIXTURES, 'transcript-bad/broken.vtt'), join(d, 'meetings/broken-2024-01-01T00-00-00Z.vtt'));
        mkdirSync(join(d, 'again'));
      },
    );
    const first = await ferry(['run', 'meetings', '--json'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(countsOf(first, 'meetings')).toMatchObject({ read: 6, created: 6, failed: 0, skipped: 4, repaired: 4 });
    expect(first.stderr).toContain('broken-2024-01-01T00-00-00Z.vtt:9: cue ends');

    const again = await ferry(['run', 'meetings', '--json'], { cwd: dir, env });
    expect(countsOf(again, 'meetings')).toMatchObject({ read: 6, created: 0, updated: 0, unchanged: 6, pushed: 0 });

    const srt = join(dir, 'meetings/call-2020-06-02T01-04-48Z.srt');
    writeFileSync(srt, readFileSync(srt, 'utf8').replace('how can i help you today', 'how may i help you today'));
    const changed = await ferry(['run', 'meetings', '--json'], { cwd: dir, env });
    expect(countsOf(changed, 'meetings')).toMatchObject({ read: 6, created: 0, updated: 1, unchanged: 5 });

    const landed = await conversationsOf('meetings');
    const standup = landed.find((c) => c.title === 'standup-2024-05-01T09-30-00Z')!;
    expect(standup.transcript?.map((t) => t.speaker)).toEqual(['Ana Lima', 'Bo Chen', 'Ana Lima', 'Ana Lima', 'Bo Chen']);
    expect(landed.find((c) => c.title === 'Harper Valley Bank: check balance')?.participants).toContainEqual(expect.objectContaining({ name: 'Jennifer', email: 'jennifer@harpervalley.example' }));

    // Round trip: the landed conversation written as WebVTT (+ sidecar) and imported again reads back the same.
    const vtt = ['WEBVTT', '', ...standup.transcript!.flatMap((t) => [`${clock(t.startTime)} --> ${clock(t.endTime)}`, `<v ${t.speaker}>${t.text.replace(/&/g, '&amp;')}</v>`, ''])].join('\n');
    writeFileSync(join(dir, 'again/standup.vtt'), vtt);
    writeFileSync(join(dir, 'again/standup.json'), JSON.stringify({ startedAt: standup.startTime, endedAt: standup.endTime, title: standup.title, participants: standup.participants.map(({ name, email }) => ({ name, ...(email ? { email } : {}) })) }));
    const reimport = await ferry(['run', 'again', '--json'], { cwd: dir, env });
    expect(countsOf(reimport, 'again')).toMatchObject({ created: 1, skipped: 0 });
    const [back] = await conversationsOf('again');
    const shape = ({ title, startTime, endTime, participants, transcript }: Conversation) => ({ title, startTime, endTime, participants, transcript });
    expect(shape(back!)).toEqual(shape(standup));
  });
});

describe('eml and maildir sources (spawned)', () => {
  it('land messages with no map:, threads and attachments included; a message moving from new/ to cur/ costs no request', async () => {
    const { dir, env } = project(
      `  - name: mail
    source: { type: eml, path: "mail/eml/*.eml", attachmentUrl: "https://files.example.org/{messageId}/{name}" }
    target: { type: message, source: { name: eml-mail } }
  - name: box
    source: { type: maildir, path: mail/Maildir }
    target: { type: message, source: { name: maildir-mail }, map: { public: false, ownerEmails: [pallen@enron.com] } }
`,
      (d) => cpSync(join(FIXTURES, 'mail'), join(d, 'mail'), { recursive: true }),
    );
    const first = await ferry(['run', '--json'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(countsOf(first, 'mail')).toMatchObject({ read: 5, created: 5, failed: 0 });
    expect(countsOf(first, 'box')).toMatchObject({ read: 5, created: 5, failed: 0 });

    const { sources } = await client.listSources({ limit: 50 } as never);
    const sourceId = (sources as { id: string; name: string }[]).find((s) => s.name === 'eml-mail')!.id;
    const messages = [];
    for await (const item of client.iterateMessages({ sourceId })) messages.push(await client.getMessage((item as { messageId: string }).messageId));
    const reply = messages.find((m) => (m as { remoteId: string }).remoteId === 'reply.2@example.org') as unknown as { threadId: string; body: string; sender: { email: string } };
    expect(reply).toMatchObject({ threadId: 'root.1@example.org', body: 'Looks good & approved.\nBo', sender: { email: 'bo@example.org' } });
    const root = messages.find((m) => (m as { remoteId: string }).remoteId === 'root.1@example.org') as unknown as { attachments: { filename: string; contentType: string; size: number }[] };
    expect(root.attachments).toEqual([expect.objectContaining({ filename: 'plan.csv', contentType: 'text/csv', size: 17 })]);

    renameSync(join(dir, 'mail/Maildir/new/1004.M4P1.enron'), join(dir, 'mail/Maildir/cur/1004.M4P1.enron:2,S'));
    const again = await ferry(['run', '--json'], { cwd: dir, env });
    expect(countsOf(again, 'mail')).toMatchObject({ read: 5, unchanged: 5, pushed: 0 });
    expect(countsOf(again, 'box')).toMatchObject({ read: 5, unchanged: 5, pushed: 0 });
  });
});

describe('slack-export source (spawned)', () => {
  it('lands each message as a message and each channel-day as a conversation, with no map:', async () => {
    const { dir, env } = project(
      `  - name: slack-messages
    source: { type: slack-export, path: slack/export.zip }
    target: { type: message, source: { name: slack-messages } }
  - name: slack-days
    source: { type: slack-export, path: slack/export.zip }
    target: { type: conversation, source: { name: slack-days } }
`,
      (d) => cpSync(join(FIXTURES, 'slack'), join(d, 'slack'), { recursive: true }),
    );
    const preview = await ferry(['preview', 'slack-days', '-n', '1'], { cwd: dir, env });
    expect(preview.stdout).toContain('"displayName": "#general 2024-05-01"');
    const run = await ferry(['run', '--json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(countsOf(run, 'slack-messages')).toMatchObject({ read: 9, created: 9, failed: 0, skipped: 3 });
    expect(countsOf(run, 'slack-days')).toMatchObject({ created: 4, failed: 0 });
    const days = await conversationsOf('slack-days');
    const first = days.find((c) => c.title === '#general 2024-05-01')!;
    expect(first.transcript?.map((t) => [t.speaker, t.text])).toEqual([
      ['Ana Lima', 'Morning! Standup in 5.'],
      ['Bo Chen', 'On my way'],
      ['Bo Chen', 'Notes attached'],
      ['Ana Lima', 'Lunch at 12:30?'],
      ['deploybot', 'Deployed v1.2.3'],
    ]);
    expect(first.participants.map((p) => p.email)).toEqual(['ana@example.org', 'bo@example.org', null]);
    const again = await ferry(['run', '--json'], { cwd: dir, env });
    expect(countsOf(again, 'slack-messages')).toMatchObject({ pushed: 0, unchanged: 9 });
    expect(countsOf(again, 'slack-days')).toMatchObject({ pushed: 0, unchanged: 4 });
  });
});

describe('ferry init --template (spawned, embedded emulator)', () => {
  it.each([
    ['transcript', '"displayName": "Daily standup"', 1],
    ['eml', '"threadId": "plan.1@example.org"', 2],
    ['slack-export', '"displayName": "#general 2024-05-01"', 1],
  ])('%s scaffolds a project whose example previews the default mapping and lands', async (template, body, created) => {
    const dir = tempProjectDir(`ferry-init-${template}-`);
    const init = await ferry(['init', '--template', template], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    const preview = await ferry(['preview', 'example'], { cwd: dir });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain(body);
    const run = await ferry(['run', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(countsOf(run, 'example')).toMatchObject({ created, failed: 0, skipped: 0 });
  });

  it('names the templates when given an unknown one', async () => {
    const init = await ferry(['init', '--template', 'fax'], { cwd: tempProjectDir() });
    expect(init.code).toBe(1);
    expect(init.stderr).toMatch(/templates: csv, transcript, eml, slack-export/);
  });
});

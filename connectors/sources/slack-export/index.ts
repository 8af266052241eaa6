/**
 * A Slack workspace export (Settings → Import/Export data), as its folder or
 * its zip: users.json names the authors (with e-mails), channels.json the
 * channels, and `<channel>/<YYYY-MM-DD>.json` holds each day's messages.
 * One record per message; the default mappings make each a MessageRequest
 * (`target: message`) or each channel-day a ConversationRequest whose
 * sentences are its messages (`target: conversation`, grouped by channel-day).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { InputProblems } from '../_shared/input-problems.js';
import { FerryError, compareCursorValues, defineSource, messageOf } from '../../../src/sdk/index.js';
import type { ReadContext, SourceRecord } from '../../../src/sdk/index.js';
import { openExport } from './archive.js';
import type { ExportTree } from './archive.js';
import { dayRecords } from './messages.js';
import type { SlackChannel, SlackUser } from './messages.js';

const options = z.strictObject({
  path: z.string().min(1).describe('The export: its folder or its .zip, relative to the YAML file.'),
  channels: z.array(z.string().min(1)).min(1).optional().describe('Only these channels (names without #). Default: every channel in channels.json.'),
  deleted: z.enum(['skip', 'keep']).default('skip').describe('Deleted messages (tombstones, message_deleted): skip (counted), or keep with the text "(deleted)".'),
  bots: z.enum(['skip', 'keep']).default('keep').describe("Bots' messages (bot_message, bot users): keep, or skip (counted)."),
  events: z.enum(['skip', 'keep']).default('skip').describe('Channel events (joins, leaves, topic and purpose changes, pins): skip (counted), or keep as messages.'),
  maxEntries: z.number().int().positive().default(100_000).describe('A zip with more entries than this is refused.'),
  maxEntryBytes: z.number().int().positive().default(64 * 1024 * 1024).describe('A zip entry larger than this, uncompressed, is refused (counted).'),
  maxTotalBytes: z.number().int().positive().default(4 * 1024 * 1024 * 1024).describe('A zip whose JSON files hold more than this, uncompressed, is refused.'),
  maxCompressionRatio: z.number().positive().default(200).describe('A zip entry over 1 MiB that inflates more than this many times its compressed size is refused as a zip bomb (counted).'),
});
type Options = z.output<typeof options>;

/** The conversation of a channel-day: its messages as sentences, its authors as participants. */
const CONVERSATION_MAP = {
  id: 'key',
  displayName: 'records[0].conversationTitle',
  createdAt: 'records[0].date',
  startedAt: 'records[0].date',
  endedAt: '$count(records) > 1 and records[-1].date != records[0].date ? records[-1].date : undefined',
  participants: '$distinct(records.sender)',
  transcript: '[records.{ "speakerId": sender.id, "speakerName": sender.name, "text": text, "timestamp": date }]',
  public: true,
} as const;

const MESSAGE_MAP = {
  id: 'id',
  displayName: 'conversationTitle',
  body: 'text',
  createdAt: 'date',
  sender: 'sender',
  recipients: 'recipients',
  threadId: 'threadId',
  attachments: 'attachments',
  public: true,
} as const;

export default defineSource({
  name: 'slack-export',
  options,
  example: { path: 'slack-export.zip' },

  targetDefaults: () => ({
    message: { map: MESSAGE_MAP },
    conversation: { map: CONVERSATION_MAP, group: { by: 'conversation', sorted: true } },
  }),
  keys: () => ({ primaryKey: ['id'], cursorField: 'date' }),

  async discover(ctx) {
    return [
      {
        name: ctx.options.path,
        primaryKey: ['id'],
        cursorCandidates: ['date'],
        fields: [
          { name: 'id', type: 'string' },
          { name: 'ts', type: 'string' },
          { name: 'date', type: 'datetime' },
          { name: 'day', type: 'date' },
          { name: 'channel', type: 'string' },
          { name: 'channelId', type: 'string' },
          { name: 'text', type: 'textarea' },
          { name: 'subtype', type: 'string' },
          { name: 'edited', type: 'datetime' },
          { name: 'deleted', type: 'boolean' },
          { name: 'bot', type: 'boolean' },
          { name: 'recipients', type: 'list' },
          { name: 'threadId', type: 'string' },
          { name: 'attachments', type: 'list' },
          { name: 'conversation', type: 'string' },
          { name: 'conversationTitle', type: 'string' },
        ],
      },
    ];
  },

  async *read(ctx) {
    const path = resolve(ctx.baseDir, ctx.options.path);
    const tree = await openExport(path, ctx.options);
    try {
      yield* readTree(ctx, tree);
    } finally {
      await tree.close();
    }
  },
});

async function json(tree: ExportTree, name: string, where: string): Promise<unknown> {
  const bytes = await tree.read(name);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `${where}/${name} is not JSON: ${messageOf(error)}`, { where: `${where}/${name}` });
  }
}

async function* readTree(ctx: ReadContext<Options>, tree: ExportTree): AsyncIterable<SourceRecord> {
  const where = ctx.options.path;
  const problems = new InputProblems(ctx, where);
  for (const entry of tree.refused) problems.report(`${where}:${entry.name}`, { line: 1, action: 'skipped', reason: entry.reason });
  if (!tree.names.includes('channels.json')) {
    throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `${where} has no channels.json: not a Slack workspace export`, { hint: 'point path at the folder (or .zip) Slack\'s export produced, which holds users.json and channels.json' });
  }
  const users = new Map<string, SlackUser>();
  if (tree.names.includes('users.json')) for (const user of (await json(tree, 'users.json', where)) as SlackUser[]) users.set(user.id, user);
  const channels = ((await json(tree, 'channels.json', where)) as SlackChannel[]).filter((c) => !ctx.options.channels || ctx.options.channels.includes(c.name)).sort((a, b) => a.name.localeCompare(b.name));
  const after = ctx.incremental?.after;
  for (const channel of channels) {
    const days = tree.names.filter((n) => n.startsWith(`${channel.name}/`) && /^\d{4}-\d{2}-\d{2}\.json$/.test(n.slice(channel.name.length + 1))).sort();
    for (const name of days) {
      if (ctx.signal.aborted) return;
      const file = `${where}:${name}`;
      let messages: unknown;
      try {
        messages = await json(tree, name, where);
      } catch (error) {
        problems.report(file, { line: 1, action: 'skipped', reason: messageOf(error) });
        continue;
      }
      const day = name.slice(channel.name.length + 1, -'.json'.length);
      const { records, problems: found } = dayRecords(messages, { users, channel }, day, ctx.options);
      for (const problem of found) problems.report(file, problem);
      for (const data of records) {
        if (after && compareCursorValues(data.date as string, after.value) <= 0) continue;
        yield { data: data as SourceRecord['data'], origin: { stream: where, file, line: data.line as number, key: data.id as string }, cursor: data.date as string };
      }
      problems.finishFile(file);
    }
  }
}

/**
 * One channel-day file of a Slack export → its messages as records: authors
 * resolved through users.json, edits (`message_changed`) folded into the
 * message they change, deletions, bot and channel-event messages kept or
 * skipped as the options say (each skip counted), files as attachments, and
 * the conversation each message belongs to: its channel-day, cut into parts
 * where the service's limits (10 hours, 10,000 sentences) require.
 */
import { nameId } from '../_shared/person-id.js';
import type { InputProblem } from '../_shared/input-problems.js';

export type SlackPerson = { id: string; name: string | null; email: string | null };
export type SlackUser = { id: string; name?: string; real_name?: string; is_bot?: boolean; profile?: { email?: string; real_name?: string; display_name?: string } };
export type SlackChannel = { id: string; name: string; members?: string[] };
type SlackFile = { id?: string; name?: string; title?: string; mimetype?: string; size?: number; url_private?: string; permalink?: string };
type SlackMessage = {
  type?: string;
  subtype?: string;
  ts?: string;
  user?: string;
  username?: string;
  bot_id?: string;
  text?: string;
  thread_ts?: string;
  files?: SlackFile[];
  edited?: { ts?: string };
  message?: SlackMessage;
  deleted_ts?: string;
};

export interface DayOptions {
  deleted: 'skip' | 'keep';
  bots: 'skip' | 'keep';
  events: 'skip' | 'keep';
}

export interface Directory {
  users: Map<string, SlackUser>;
  channel: SlackChannel;
}

const LIMIT_MS = 10 * 3_600_000;
const LIMIT_SENTENCES = 10_000;
/** Channel events: joins, topics, pins… not something anyone said. */
const EVENTS = /^(channel|group)_(join|leave|topic|purpose|name|archive|unarchive)$|^pinned_item$|^unpinned_item$/;

export function personOfUser(users: Map<string, SlackUser>, id: string | undefined, fallbackName?: string): SlackPerson {
  const user = id ? users.get(id) : undefined;
  const name = user?.profile?.real_name || user?.real_name || user?.profile?.display_name || user?.name || fallbackName || id || 'unknown';
  const email = user?.profile?.email ?? null;
  return { id: id ? `slack:${id}` : nameId(name), name, email };
}

const tsDate = (ts: string): string => new Date(Math.round(Number(ts) * 1000)).toISOString();

/** The records of one day file, in ts order, and what was skipped or repaired. */
export function dayRecords(messages: unknown, dir: Directory, day: string, options: DayOptions): { records: Record<string, unknown>[]; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  if (!Array.isArray(messages)) return { records: [], problems: [{ line: 1, action: 'skipped', reason: 'not a JSON array of messages' }] };
  const byTs = new Map<string, { message: SlackMessage; index: number; deleted: boolean }>();
  const order: string[] = [];
  messages.forEach((raw: unknown, index) => {
    const message = raw as SlackMessage;
    const at = index + 1;
    if (typeof message !== 'object' || message === null || typeof message.ts !== 'string' || !Number.isFinite(Number(message.ts))) {
      problems.push({ line: at, action: 'skipped', reason: `message ${at} has no ts` });
      return;
    }
    if (message.subtype === 'message_changed' && message.message?.ts) {
      const target = byTs.get(message.message.ts);
      if (target) target.message = { ...target.message, text: message.message.text ?? target.message.text, files: message.message.files ?? target.message.files, edited: message.message.edited ?? { ts: message.ts } };
      else problems.push({ line: at, action: 'skipped', reason: `an edit of message ${message.message.ts}, which is not in this day's file` });
      return;
    }
    if (message.subtype === 'message_deleted' && message.deleted_ts) {
      const target = byTs.get(message.deleted_ts);
      if (target) target.deleted = true;
      return;
    }
    if (!byTs.has(message.ts)) order.push(message.ts);
    byTs.set(message.ts, { message, index: at, deleted: message.subtype === 'tombstone' });
  });

  const records: Record<string, unknown>[] = [];
  let partStart = Number.NEGATIVE_INFINITY;
  let part = 1;
  let inPart = 0;
  const channel = dir.channel;
  const members = (channel.members ?? []).map((id) => personOfUser(dir.users, id));
  for (const ts of order.sort((a, b) => Number(a) - Number(b))) {
    const { message, index, deleted } = byTs.get(ts)!;
    const bot = message.subtype === 'bot_message' || message.bot_id !== undefined || dir.users.get(message.user ?? '')?.is_bot === true;
    if (deleted && options.deleted === 'skip') {
      problems.push({ line: index, action: 'skipped', reason: `message ${ts} was deleted (deleted: skip)` });
      continue;
    }
    if (bot && options.bots === 'skip') {
      problems.push({ line: index, action: 'skipped', reason: `message ${ts} is a bot's (bots: skip)` });
      continue;
    }
    if (message.subtype && EVENTS.test(message.subtype) && options.events === 'skip') {
      problems.push({ line: index, action: 'skipped', reason: `message ${ts} is a channel event, ${message.subtype} (events: skip)` });
      continue;
    }
    const ms = Number(ts) * 1000;
    if (inPart >= LIMIT_SENTENCES || ms - partStart > LIMIT_MS) {
      if (inPart > 0) part++;
      partStart = ms;
      inPart = 0;
    }
    inPart++;
    const sender = personOfUser(dir.users, message.user, message.username);
    const others = members.filter((m) => m.id !== sender.id);
    const channelPerson: SlackPerson = { id: `slack:${channel.id}`, name: `#${channel.name}`, email: null };
    const recipients = others.length > 0 && others.length <= 1000 ? others : [channelPerson];
    const files = (message.files ?? []).filter((f) => typeof f.url_private === 'string' && /^https?:\/\//.test(f.url_private));
    const text = deleted ? '(deleted)' : (message.text ?? '');
    records.push({
      id: `${channel.id}/${ts}`,
      ts,
      date: tsDate(ts),
      day,
      channel: channel.name,
      channelId: channel.id,
      text,
      subtype: message.subtype ?? null,
      edited: message.edited?.ts ? tsDate(message.edited.ts) : null,
      deleted,
      bot,
      sender,
      recipients,
      threadId: message.thread_ts ? `${channel.id}/${message.thread_ts}` : null,
      attachments: files.map((f) => ({ name: f.name ?? f.title ?? f.id ?? 'file', url: f.url_private!, mimeType: f.mimetype ?? null, sizeBytes: typeof f.size === 'number' ? f.size : null })),
      conversation: part === 1 ? `${channel.id}/${day}` : `${channel.id}/${day}#part${part}`,
      conversationTitle: `#${channel.name} ${day}${part === 1 ? '' : ` (part ${part})`}`,
      line: index,
    });
  }
  return { records, problems };
}

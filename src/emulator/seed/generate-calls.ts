/**
 * Contact-center calls from Harper Valley (`harper-valley-calls/`) as native
 * dialer conversations: real epoch-ms times, the corrected (human) transcript
 * ordered by when each segment starts, the scripted task as the summary and
 * a generated audio recording.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { iso } from './generate-random.js';
import { emailOf } from './generate-people.js';
import type { SeedConversationInput } from './format.js';

const segment = z.object({
  speaker_role: z.string(),
  human_transcript: z.string(),
  start_timestamp_ms: z.number(),
  duration_ms: z.number(),
  index: z.number(),
  emotion: z.record(z.string(), z.number()).optional(),
});
const side = (nameKey: string) =>
  z.object({ metadata: z.object({ [nameKey]: z.string() }).passthrough() }).passthrough();
const metadata = z.object({
  sid: z.string(),
  start_time_ms: z.number(),
  end_time_ms: z.number(),
  session: z.string(),
  tasks: z.array(z.record(z.string(), z.union([z.string(), z.number()]))),
  agent: side('agent_name'),
  caller: side('first and last name'),
});

/** Segments that are nothing but noise markers (`[noise]`, `[laughter]`) carry no speech. */
const isNoise = (text: string) => text.replace(/\[[^\]]*\]/g, '').trim() === '';

/** What the caller wanted, in a sentence, from the scripted task. */
function describeTask(task: Record<string, string | number>): string {
  switch (task.task_type) {
    case 'replace card': {
      const kind = task['replacement card type'];
      return `The caller needed to replace their ${kind ? `${String(kind)} ` : ''}card.`;
    }
    case 'check balance':
      return `The caller wanted to check the balance of their ${String(task['balance check account type'] ?? '')} account.`;
    case 'transfer money':
      return `The caller wanted to transfer $${String(task['transfer amount'] ?? '')} from their ${String(task['transfer source account'] ?? '')} account to their ${String(task['transfer destination account'] ?? '')} account.`;
    default:
      return `The caller asked for help: ${String(task.task_type ?? 'unknown request')}.`;
  }
}

export interface CallOptions {
  orgDomain: string;
  /** Where callers' invented personal e-mail addresses live. */
  callerDomain?: string;
}

export function generateCalls(dir: string, options: CallOptions): SeedConversationInput[] {
  const base = join(dir, 'harper-valley-calls', 'data');
  const sids = readdirSync(join(base, 'metadata')).filter((f) => f.endsWith('.json')).sort();
  return sids.map((file, i) => {
    const meta = metadata.parse(JSON.parse(readFileSync(join(base, 'metadata', file), 'utf8')));
    const segments = z.array(segment).parse(JSON.parse(readFileSync(join(base, 'transcript', file), 'utf8')));
    const agent = String(meta.agent.metadata.agent_name);
    const caller = String(meta.caller.metadata['first and last name']);
    const task = meta.tasks[0] ?? {};
    const speakerOf = (role: string) => (role === 'agent' ? agent : caller);
    // Sort by start, not by index: the agent channel's clock offset reorders some segments.
    const transcript = segments
      .filter((s) => !isNoise(s.human_transcript))
      .sort((x, y) => x.start_timestamp_ms - y.start_timestamp_ms || x.index - y.index)
      .map((s) => {
        const start = Math.max(0, s.start_timestamp_ms - meta.start_time_ms) / 1000;
        return { speaker: speakerOf(s.speaker_role), text: s.human_transcript.trim(), startTime: start, endTime: (s.start_timestamp_ms + s.duration_ms - meta.start_time_ms) / 1000 };
      });
    const lastEnd = transcript.reduce((max, e) => Math.max(max, e.endTime), 0);
    const negative = segments.filter((s) => (s.emotion?.negative ?? 0) > 0.5).length;
    return {
      // Half the calls come from the Aircall dialer, half were uploaded afterwards.
      sourceId: i % 2 === 0 ? 'aircall_dialer' : 'uploaded_call',
      remoteId: meta.sid,
      title: `Harper Valley National Bank – ${String(task.task_type ?? 'call')} (${caller})`,
      startTime: iso(meta.start_time_ms),
      endTime: iso(Math.max(meta.end_time_ms, meta.start_time_ms + lastEnd * 1000)),
      type: 'EXTERNAL',
      participants: [
        { name: agent, email: emailOf(agent, options.orgDomain), attended: true },
        { name: caller, email: emailOf(caller, options.callerDomain ?? 'example.net'), attended: true },
      ],
      crm: null,
      category: 'customer_support',
      summary: {
        headline: describeTask(task),
        task: task.task_type ?? null,
        details: task,
        agent,
        caller,
        session: meta.session,
        sentiment: negative > 0 ? 'mixed' : 'positive',
      },
      transcript,
      recording: { audio: true },
    };
  });
}

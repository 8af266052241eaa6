/**
 * `group: { by }` over a source whose utterances are not contiguous: every
 * conversation lands once, complete, and an unchanged re-run sends nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';

const CONVERSATIONS = 50;
const UTTERANCES = 5;

/** 50 calls × 5 utterances in a fixed shuffled order (a seeded LCG, so the test is repeatable). */
function shuffledUtterances(): string {
  const lines: { call: string; seq: number; speaker: string; text: string; at: number }[] = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    for (let u = 0; u < UTTERANCES; u++) {
      lines.push({ call: `call-${c}`, seq: u, speaker: u % 2 === 0 ? 'agent' : 'caller', text: `utterance ${u} of call ${c}`, at: 1_700_000_000_000 + c * 60_000 + u * 1000 });
    }
  }
  let seed = 42;
  for (let i = lines.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const CALLS_SYNC = (sorted = '') => `  - name: calls
    source: { type: jsonl, path: data/utterances.jsonl }
    group: { by: call${sorted} }
    target:
      type: conversation
      source: { name: calls }
      map:
        id: key
        public: true
        displayName: '"Call " & key'
        createdAt: $min(records.at)
        startedAt: $min(records.at)
        endedAt: $max(records.at)
        participants: '$distinct(records.speaker).{ "id": $, "name": $ }'
        transcript: '$sort(records, function($l, $r) { $l.seq > $r.seq }).{ "speakerName": speaker, "text": text, "timestamp": at }'
`;

describe('group: { by } with interleaved keys', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  it('pushes each conversation once, complete, and an unchanged re-run sends no writes', async () => {
    h.write('data/utterances.jsonl', shuffledUtterances());
    h.writeConfig(CALLS_SYNC());
    const first = await h.run();
    expect(first.summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: CONVERSATIONS, created: CONVERSATIONS, updated: 0, failed: 0 } });
    expect(Harness.writes(first.requests)).toHaveLength(CONVERSATIONS);
    // Every write carries a whole conversation: a crash at any point leaves none partial.
    expect(Harness.writes(first.requests).map((r) => (JSON.parse(r.body) as { transcript: unknown[] }).transcript.length)).toEqual(
      Array.from({ length: CONVERSATIONS }, () => UTTERANCES),
    );

    const listed = [];
    for await (const conversation of h.client.iterateConversations({ limit: 50 })) listed.push(conversation);
    expect(listed).toHaveLength(CONVERSATIONS);
    for (const { conversationId } of listed) {
      const detail = await h.client.getConversation(conversationId);
      expect(detail.transcript).toHaveLength(UTTERANCES);
    }

    const second = await h.run();
    expect(second.summaries[0]).toMatchObject({ status: 'succeeded', counts: { read: CONVERSATIONS, unchanged: CONVERSATIONS, created: 0, updated: 0 } });
    expect(Harness.writes(second.requests)).toHaveLength(0);
  });

  it('sorted: true on an unsorted source stops before pushing a partial conversation twice', async () => {
    h.write('data/utterances.jsonl', shuffledUtterances());
    h.writeConfig(CALLS_SYNC(', sorted: true'));
    const { summaries } = await h.run();
    expect(summaries[0]).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(summaries[0]!.error).toMatch(/comes back at data\/utterances\.jsonl:\d+ after its group was sent/);
    // Nothing was re-sent: each key was written at most once.
    const paths = Harness.writes(h.requests).map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('with an incremental cursor, stores it past whole groups only and reads on from there', async () => {
    const line = (call: string, seq: number, at: number) => JSON.stringify({ call, seq, speaker: 'agent', text: `${call} ${seq}`, at, updated: at });
    // Interleaved calls whose cursor ranges overlap.
    const first = [line('a', 0, 1), line('b', 0, 2), line('a', 1, 3), line('b', 1, 4)];
    h.write('data/utterances.jsonl', first.join('\n') + '\n');
    h.writeConfig(CALLS_SYNC().replace('    group: { by: call }\n', '    group: { by: call }\n    incremental: { cursor: updated }\n'));
    const run1 = await h.run();
    expect(run1.summaries[0]).toMatchObject({ counts: { read: 2, created: 2 } });
    expect(run1.summaries[0]!.cursor).toMatchObject({ value: 4 });

    h.write('data/utterances.jsonl', [...first, line('c', 0, 5), line('c', 1, 6)].join('\n') + '\n');
    const run2 = await h.run();
    expect(run2.summaries[0]).toMatchObject({ counts: { read: 1, created: 1 } });
    expect(run2.summaries[0]!.cursor).toMatchObject({ value: 6 });
    expect(Harness.writes(run2.requests).map((r) => (JSON.parse(r.body) as { transcript: unknown[] }).transcript.length)).toEqual([2]);
  });
});

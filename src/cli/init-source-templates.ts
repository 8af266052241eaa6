/**
 * `ferry init --template transcript|eml|slack-export`: a project whose
 * example sync reads a few conversation-native files with the source's
 * default mapping (no `map:`), so `ferry preview example` shows the bodies
 * that mapping gives. Each must pass `ferry check` and `ferry run` against
 * the embedded emulator as written.
 */

export interface TemplateFile {
  path: string;
  content: string;
}

const TRANSCRIPT_PIPELINE = `# An example sync: meeting transcripts (WebVTT, SRT or text) → conversations.
# No map: the transcript source's default mapping fills id, displayName, startedAt,
# endedAt, participants and transcript. Keys written under map: replace the default's.
# Try it: ferry preview example, then ferry run example.
syncs:
  - name: example
    description: Meeting transcripts pushed as conversations
    source:
      type: transcript
      path: ../data/meetings/*.vtt   # standup.vtt's sidecar standup.json gives the start, title and e-mails
    target:
      type: conversation
      source: { name: ferry-meetings, displayName: Meeting transcripts }
`;

const TRANSCRIPT_VTT = `WEBVTT

NOTE A WebVTT transcript as meeting tools export them: voice tags or "Name: " prefixes.

00:00.000 --> 00:04.000
<v Ana Lima>Good morning, everyone. Let's start with updates.

00:04.500 --> 00:09.000
<v Bo Chen>Yesterday I fixed the login bug; today I am on the export.

00:09.500 --> 00:12.000
Ana Lima: Thanks, Bo. Anything blocking you?

00:12.500 --> 00:14.000
<v Bo Chen>Nothing, thanks.
`;

const TRANSCRIPT_SIDECAR = `{
  "startedAt": "2024-05-01T09:30:00Z",
  "title": "Daily standup",
  "participants": [
    { "name": "Ana Lima", "email": "ana@example.org" },
    { "name": "Bo Chen", "email": "bo@example.org" }
  ]
}
`;

const EML_PIPELINE = `# An example sync: e-mails saved as .eml files → messages.
# No map: the eml source's default mapping fills id, displayName (subject), body,
# createdAt, sender, recipients (To and Cc) and threadId. Keys under map: replace the default's.
# Try it: ferry preview example, then ferry run example.
syncs:
  - name: example
    description: E-mails (.eml) pushed as messages
    source:
      type: eml
      path: ../data/mail/*.eml
    target:
      type: message
      source: { name: ferry-mail, displayName: E-mail }
`;

const EML_ROOT = `Message-ID: <plan.1@example.org>
Date: Tue, 1 Oct 2024 09:00:00 +0200
From: Ana Lima <ana@example.org>
To: Bo Chen <bo@example.org>
Subject: Plan for Q1
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Hi Bo,

here is the plan for Q1: ship the export, then the console.

Ana
`;

const EML_REPLY = `Message-ID: <plan.2@example.org>
In-Reply-To: <plan.1@example.org>
References: <plan.1@example.org>
Date: Tue, 1 Oct 2024 10:30:00 +0200
From: Bo Chen <bo@example.org>
To: Ana Lima <ana@example.org>
Subject: Re: Plan for Q1
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<p>Looks good &amp; <b>approved</b>.</p><p>Bo</p>
`;

const SLACK_PIPELINE = `# An example sync: a Slack workspace export (its folder or its .zip) → conversations,
# one per channel and day, whose sentences are the day's messages. With
# target: { type: message } instead, each Slack message becomes a message.
# No map: the slack-export source's default mapping (and grouping) does it.
# Try it: ferry preview example, then ferry run example.
syncs:
  - name: example
    description: Slack channels, a conversation per channel-day
    source:
      type: slack-export
      path: ../data/slack-export
    target:
      type: conversation
      source: { name: ferry-slack, displayName: Slack }
`;

const SLACK_USERS = `[
  { "id": "U01ANA", "name": "ana", "real_name": "Ana Lima", "profile": { "real_name": "Ana Lima", "email": "ana@example.org" } },
  { "id": "U02BO", "name": "bo", "real_name": "Bo Chen", "profile": { "real_name": "Bo Chen", "email": "bo@example.org" } }
]
`;

const SLACK_CHANNELS = `[
  { "id": "C01GEN", "name": "general", "members": ["U01ANA", "U02BO"] }
]
`;

const SLACK_DAY = `[
  { "type": "message", "user": "U01ANA", "text": "Morning! Standup in 5.", "ts": "1714550400.000200", "thread_ts": "1714550400.000200" },
  { "type": "message", "user": "U02BO", "text": "On my way", "ts": "1714550460.000300", "thread_ts": "1714550400.000200" },
  { "type": "message", "user": "U01ANA", "text": "Lunch at 12:30?", "ts": "1714551600.000500" }
]
`;

/** The template names `ferry init --template` takes besides the default (csv). */
export const SOURCE_TEMPLATES: Readonly<Record<string, readonly TemplateFile[]>> = {
  transcript: [
    { path: 'pipelines/example.yaml', content: TRANSCRIPT_PIPELINE },
    { path: 'data/meetings/standup.vtt', content: TRANSCRIPT_VTT },
    { path: 'data/meetings/standup.json', content: TRANSCRIPT_SIDECAR },
  ],
  eml: [
    { path: 'pipelines/example.yaml', content: EML_PIPELINE },
    { path: 'data/mail/plan-1.eml', content: EML_ROOT },
    { path: 'data/mail/plan-2.eml', content: EML_REPLY },
  ],
  'slack-export': [
    { path: 'pipelines/example.yaml', content: SLACK_PIPELINE },
    { path: 'data/slack-export/users.json', content: SLACK_USERS },
    { path: 'data/slack-export/channels.json', content: SLACK_CHANNELS },
    { path: 'data/slack-export/general/2024-05-01.json', content: SLACK_DAY },
  ],
};

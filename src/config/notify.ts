/**
 * `notify:` in ferry.yaml: where alerts go (webhooks) and when they are sent
 * (a run failed, too large a share of its records was rejected, a sync has
 * not succeeded for too long). The senders are in src/notify.
 */
import { z } from 'zod';
import { registerSecret } from '../sdk/redact.js';

const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration such as `90s`, `30m`, `6h`, `2d`; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : undefined;
}

const duration = z
  .string()
  .refine((value) => durationMs(value) !== undefined, { message: 'must be a duration such as 90s, 30m, 6h or 2d' })
  .transform((value) => durationMs(value)!);

export const webhookConfig = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .describe('Where the alert is POSTed, e.g. ${SLACK_WEBHOOK_URL}. Masked everywhere ferry prints it (a webhook URL is a credential).'),
    format: z
      .enum(['slack', 'json'])
      .default('slack')
      .describe('slack: a Slack-compatible body ({ text, blocks }, also read by Mattermost, Rocket.Chat, Teams workflows); json: the alert as a plain JSON object.'),
  })
  .transform((hook) => {
    // The path of a Slack or Teams webhook URL is its credential: mask the whole URL wherever it shows.
    registerSecret(hook.url);
    const url = new URL(hook.url);
    if (url.pathname.length > 1) registerSecret(`${url.pathname}${url.search}`);
    return hook;
  });

export const notifyConfig = z
  .strictObject({
    webhooks: z.array(webhookConfig).default([]).describe('Webhooks every alert is sent to.'),
    onFailure: z.boolean().default(true).describe('Alert when a run fails (exit 3: the service unreachable, auth refused, the source lost).'),
    rejectedShareAbove: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .default(0.05)
      .describe('Alert when more than this share (0–1) of a run\'s read records was rejected (dead-lettered); null turns it off.'),
    notSucceededWithin: duration
      .optional()
      .describe('Alert when a sync has not succeeded for this long (e.g. 6h). Without it, a sync with a schedule: is expected to succeed within twice its interval, and other syncs are not watched. Checked by `ferry worker` and `ferry console` while they run.'),
    consoleUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('Base URL of `ferry console` that alerts link to (where to look), e.g. http://127.0.0.1:4310.'),
  });
export type NotifyConfig = z.output<typeof notifyConfig>;

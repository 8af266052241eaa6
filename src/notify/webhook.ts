/**
 * Sending an alert to a webhook: a Slack-compatible body (`text` plus
 * `blocks`, which Slack, Mattermost and Rocket.Chat read) or the alert as
 * plain JSON. Every string passes the redactor first; the webhook URL itself
 * is a registered secret, so failures name only its origin.
 *
 * The request goes through ferry's one HTTP transport (src/sdk/transport):
 * two attempts on a transient answer, a 10 s timeout, a small cap on the
 * answer, no redirects.
 */
import { messageOf } from '../sdk/guards.js';
import { redactValue } from '../sdk/redact.js';
import { HttpTransport } from '../sdk/transport/index.js';
import type { Alert } from './alerts.js';

export interface Webhook {
  url: string;
  format: 'slack' | 'json';
}

/** A webhook that does not answer within this long is given up on: an alert must never hold a run up. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The body POSTed for `alert`, in the hook's format, secrets masked. */
export function webhookBody(alert: Alert, format: Webhook['format']): unknown {
  const safe = redactValue(alert) as Alert;
  if (format === 'json') return { source: 'ferry', ...safe };
  const where = safe.where.url ? `<${safe.where.url}|Open in ferry console> · \`${safe.where.command}\`` : `\`${safe.where.command}\``;
  return {
    text: `${safe.title}: ${safe.detail}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(safe.title)}*\n${escapeMrkdwn(safe.detail)}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `sync \`${safe.sync}\`${safe.runId ? ` · run \`${safe.runId}\`` : ''} · ${where}` }] },
    ],
  };
}

function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The transport of each webhook origin: its retries, caps and breaker; no credentials travel anywhere else. */
const transports = new Map<string, HttpTransport>();

function transportFor(url: URL): HttpTransport {
  let transport = transports.get(url.origin);
  if (!transport) {
    transport = new HttpTransport({
      origins: url,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      // An answer is of no use but its status: a small cap, and two attempts (an alert must never hold a run up).
      maxResponseBytes: 64 * 1024,
      retry: { maxAttempts: 2, baseDelayMs: 500, maxDelayMs: 2000, maxRetryAfterMs: 5000 },
      errors: { what: 'the webhook', showUrl: (u) => u.origin },
    });
    transports.set(url.origin, transport);
  }
  return transport;
}

/** POST the alert; resolves to undefined when the hook took it, else to what went wrong (never throws). */
export async function sendWebhook(hook: Webhook, alert: Alert): Promise<string | undefined> {
  const url = new URL(hook.url);
  try {
    const answer = await transportFor(url).send(
      { method: 'POST', url, headers: { 'content-type': 'application/json', 'user-agent': 'ferry-alerts' }, body: JSON.stringify(webhookBody(alert, hook.format)) },
      // A webhook that moved answers 3xx and is reported: its new address is not followed with the alert.
      { label: `webhook ${url.origin}`, followRedirects: false },
    );
    if (answer.status >= 200 && answer.status < 300) return undefined;
    return `the webhook at ${url.origin} answered ${answer.status}`;
  } catch (error) {
    return `the webhook at ${url.origin} could not be reached: ${messageOf(error)}`;
  }
}

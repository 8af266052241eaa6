/**
 * The one place runs hand their outcome to alerts: `ferry run`, workers and
 * the console each hold a {@link Notifier} for their project. It decides
 * which alerts a run raises, sends them to every webhook, logs what was sent
 * and what could not be, and remembers the stalled syncs it already reported
 * so a long-lived process (worker, console) says so once per stall.
 */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/index.js';
import { redact } from '../sdk/redact.js';
import type { RunStore } from '../state/index.js';
import { alertsForRun, overdueAlert } from './alerts.js';
import type { Alert, FinishedRun } from './alerts.js';
import { sendWebhook } from './webhook.js';

/** Runs looked at per sync to find its last success. */
const HISTORY = 50;

export class Notifier {
  readonly #config: LoadedConfig;
  readonly #logger: Logger;
  /** Per stalled sync, the last success (run id, or '' for none) already reported. */
  readonly #reported = new Map<string, string>();

  constructor(config: LoadedConfig, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
  }

  /** Whether any webhook is configured (nothing is evaluated otherwise). */
  get enabled(): boolean {
    return this.#config.notify.webhooks.length > 0;
  }

  /** Alerts for a finished run, sent; the alerts are returned (for tests and the console). */
  async runFinished(run: FinishedRun): Promise<Alert[]> {
    if (!this.enabled) return [];
    const alerts = alertsForRun(this.#config.notify, run);
    await this.send(alerts);
    return alerts;
  }

  /** Alerts for syncs that have not succeeded within their expected interval, each stall once. */
  async checkOverdue(store: RunStore, now: Date = new Date()): Promise<Alert[]> {
    if (!this.enabled) return [];
    const alerts: Alert[] = [];
    for (const sync of this.#config.syncs) {
      const alert = overdueAlert(this.#config.notify, sync, await store.runs({ sync: sync.name, limit: HISTORY }), now);
      if (alert === undefined) {
        this.#reported.delete(sync.name);
        continue;
      }
      const key = alert.runId ?? '';
      if (this.#reported.get(sync.name) === key) continue;
      this.#reported.set(sync.name, key);
      alerts.push(alert);
    }
    await this.send(alerts);
    return alerts;
  }

  async send(alerts: readonly Alert[]): Promise<void> {
    for (const alert of alerts) {
      const results = await Promise.all(this.#config.notify.webhooks.map((hook) => sendWebhook(hook, alert)));
      const failed = results.filter((r): r is string => r !== undefined);
      const fields = { sync: alert.sync, alert: alert.kind, ...(alert.runId ? { runId: alert.runId } : {}) };
      if (failed.length < results.length) this.#logger.info(fields, redact(`alert sent: ${alert.title}`));
      for (const problem of failed) this.#logger.warn(fields, redact(`alert not delivered: ${problem}; the run itself is not affected`));
    }
  }
}

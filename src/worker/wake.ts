/**
 * Wakes idle workers when ferry queues a job. pg-boss 10 has no
 * notification: a worker would notice a new job at its next poll, up to a
 * poll interval later, on every `ferry run --queue` and for every slice a
 * fan-out queues. Senders NOTIFY on a channel of the queue schema; each
 * worker LISTENs on a connection of its own. Polling stays the fallback: a
 * lost notification or a broken connection delays a job by one poll, never
 * loses it.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_MS = 5_000;

/** The channel of a queue schema (a hash: channel names are identifiers of at most 63 bytes). */
export function wakeChannel(queueSchema: string): string {
  return `ferry_wake_${createHash('sha256').update(queueSchema).digest('hex').slice(0, 24)}`;
}

export interface WakeListener {
  close(): Promise<void>;
}

/**
 * Calls `onWork` whenever a job is queued in `queueSchema`, until closed;
 * resolves once listening (or once the first attempt failed: it reconnects
 * in the background, and polling covers the gap).
 */
export async function listenForWork(url: string, queueSchema: string, onWork: () => void, logger: Logger): Promise<WakeListener> {
  const channel = wakeChannel(queueSchema);
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, application_name: 'ferry-worker-wake' });
    client = next;
    next.on('notification', () => onWork());
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, undefined));
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      lost(next, error);
    }
  };

  const lost = (which: pg.Client, error: unknown): void => {
    if (closed || which !== client || retry !== undefined) return;
    client = undefined;
    which.removeAllListeners('end');
    void which.end().catch(() => undefined);
    logger.warn({ err: error }, 'lost the queue notification connection; polling meanwhile, reconnecting');
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}

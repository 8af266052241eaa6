/**
 * START_REPLICATION on the replication connection, as COPY BOTH through
 * pg-copy-streams' `both`: frames come in (changes and keepalives), standby
 * status updates go out. Reading applies backpressure (the socket is paused
 * while frames wait unread); status updates are written on a timer whatever
 * the reader is doing, so a busy pipeline is not taken for a dead client
 * (wal_sender_timeout) and an idle one keeps the slot moving.
 */
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import * as copyStreams from 'pg-copy-streams';
import { decodeFrame, formatLsn, standbyStatus, type ReplicationFrame } from './pgoutput.js';

/** pg-copy-streams' COPY BOTH query, which its published typings leave out. */
const both = (copyStreams as unknown as { both(text: string, options: object): Duplex & pg.Submittable }).both;

/** Frames held unread before the socket is paused. */
const HIGH_WATER = 256;

export class ReplicationStream {
  private readonly copy: Duplex;
  private readonly frames: Buffer[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private paused = false;
  private readonly timer: NodeJS.Timeout;
  /** The position reported as flushed: every change before it landed in the service and in ferry's state. */
  private confirmedLsn: bigint;
  /** The server's WAL position as its last frame gave it. */
  serverLsn = 0n;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly client: pg.Client,
    slot: string,
    publication: string,
    start: bigint,
    statusIntervalMs: number,
  ) {
    this.confirmedLsn = start;
    // The names are validated identifiers ([a-z0-9_]); publication_names takes a quoted list.
    const command = `START_REPLICATION SLOT "${slot}" LOGICAL ${formatLsn(start)} (proto_version '1', publication_names '"${publication}"')`;
    this.copy = client.query(both(command, { alignOnCopyDataFrame: true, readableObjectMode: true }));
    this.copy.on('data', (chunk: Buffer) => {
      this.frames.push(chunk);
      if (this.frames.length >= HIGH_WATER && !this.paused) {
        this.paused = true;
        this.copy.pause();
      }
      this.notify();
    });
    this.copy.on('end', () => {
      this.ended = true;
      this.notify();
    });
    this.copy.on('error', (error: unknown) => {
      this.failure ??= { error };
      this.notify();
    });
    this.timer = setInterval(() => this.sendStatus(), statusIntervalMs);
    this.timer.unref();
  }

  get confirmed(): bigint {
    return this.confirmedLsn;
  }

  /** The next frame; `undefined` when the signal aborted or the server ended the stream. */
  async next(signal: AbortSignal): Promise<ReplicationFrame | undefined> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      const payload = this.frames.shift();
      if (payload !== undefined) {
        if (this.paused && this.frames.length < HIGH_WATER / 4) {
          this.paused = false;
          this.copy.resume();
        }
        const frame = decodeFrame(payload);
        if (!frame) continue;
        if (frame.walEnd > this.serverLsn) this.serverLsn = frame.walEnd;
        if (frame.tag === 'keepalive' && frame.replyRequested) this.sendStatus();
        return frame;
      }
      if (this.ended || signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal.removeEventListener('abort', done);
          this.wake = undefined;
          resolve();
        };
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Report `lsn` as flushed: the server may recycle the WAL before it. Never moves back. */
  confirm(lsn: bigint): void {
    if (lsn <= this.confirmedLsn) return;
    this.confirmedLsn = lsn;
    this.sendStatus();
  }

  /** Tells the server the confirmed position (a heartbeat when nothing changed). */
  sendStatus(): void {
    if (this.closed || this.failure || this.ended) return;
    try {
      this.copy.write(standbyStatus(this.confirmedLsn));
    } catch {
      // A closing connection: the next run starts from ferry's own stored position.
    }
  }

  /** A last status update, then the connection goes. */
  close(): Promise<void> {
    return (this.closed ??= (async () => {
      clearInterval(this.timer);
      if (!this.failure && !this.ended) {
        try {
          this.copy.write(standbyStatus(this.confirmedLsn));
        } catch {
          // see sendStatus
        }
      }
      // Let the status update leave before the socket closes.
      await new Promise((resolve) => setImmediate(resolve));
      await this.client.end().catch(() => undefined);
    })());
  }

  private notify(): void {
    this.wake?.();
  }
}

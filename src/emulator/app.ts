/**
 * The emulator's runtime: the store plus the in-process state handlers
 * share (keys, faults, in-flight record locks, pending waits, media signing).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type pino from 'pino';
import type { KeyRing } from './auth.js';
import type { FaultInjector } from './faults.js';
import { conflict } from './http/errors.js';
import type { EmulatorStore } from './store/index.js';
import { uuidFromBytes } from './store/uuid.js';

export const MEDIA_URL_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface AppConfig {
  askWaitMs: number;
  askDelayMs: number;
}

export class App {
  private readonly locks = new Set<string>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private readonly mediaSecret: Buffer;
  private closed = false;
  /** Origin of absolute URLs, set once the server listens. */
  baseUrl = '';

  constructor(
    readonly store: EmulatorStore,
    readonly keys: KeyRing,
    readonly faults: FaultInjector,
    readonly config: AppConfig,
    readonly logger: pino.Logger,
  ) {
    this.mediaSecret = Buffer.from(store.meta.getOrCreate('media_secret', () => randomBytes(32).toString('hex')), 'hex');
  }

  /**
   * Run `fn` holding the in-flight lock of one record key. A second write of
   * the same key while the first is in progress (including its injected
   * latency, `delay`) is refused with 409 conflict.
   */
  async withRecordLock<T>(parts: readonly string[], delay: () => Promise<void>, fn: () => T | Promise<T>): Promise<T> {
    const key = JSON.stringify(parts);
    if (this.locks.has(key)) {
      throw conflict('another write of this record is in progress; retry later', 'id');
    }
    this.locks.add(key);
    try {
      await delay();
      return await fn();
    } finally {
      this.locks.delete(key);
    }
  }

  /** True once the emulator is closing: waits end and must not start again. */
  get closing(): boolean {
    return this.closed;
  }

  /** A timer that ends early when the emulator closes. */
  sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        resolve,
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, ms),
      };
      this.timers.add(entry);
    });
  }

  cancelSleeps(): void {
    this.closed = true;
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.timers.clear();
  }

  private sign(mediaId: string, expires: number, disposition: string): string {
    return createHmac('sha256', this.mediaSecret).update(`${mediaId}:${expires}:${disposition}`).digest('base64url');
  }

  /** An absolute, "presigned" media URL valid for 24 hours. */
  mediaUrl(mediaId: string, extension: string, disposition: 'download' | 'stream', now = Date.now()): string {
    const expires = Math.floor((now + MEDIA_URL_LIFETIME_MS) / 1000);
    const signature = this.sign(mediaId, expires, disposition);
    return `${this.baseUrl}/media/${mediaId}.${extension}?disposition=${disposition}&expires=${expires}&signature=${signature}`;
  }

  verifyMediaSignature(mediaId: string, expires: number, disposition: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(mediaId, expires, disposition));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** A UUID-shaped id derived from its parts, so re-pushing a record keeps ids of its attachments and media. */
export function stableUuid(...parts: readonly string[]): string {
  return uuidFromBytes(createHash('sha256').update(JSON.stringify(parts)).digest(), 4);
}

/** Options of the emulator and the files it reads (keys), parsed once with zod. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type pino from 'pino';
import { SCOPES, uuid } from '../api/schemas/common.js';
import type { SeedFile } from './seed/format.js';

export const keyEntry = z.object({
  orgId: uuid,
  scopes: z.array(z.enum(SCOPES)),
  revoked: z.boolean().optional(),
});
export type KeyEntry = z.infer<typeof keyEntry>;

/** `{ "<key>": { orgId, scopes, revoked? } }`. */
export const keysFile = z.record(z.string().min(1), keyEntry);
export type KeysFile = z.infer<typeof keysFile>;

export const faultOptions = z.object({
  /** Added latency per /v1 request, in ms. @default 0 */
  latencyMs: z.number().nonnegative().optional(),
  /** Random extra latency, uniform in [0, jitterMs). @default 0 */
  jitterMs: z.number().nonnegative().optional(),
  /** Share (0–1) of /v1 requests answered 429. @default 0 */
  rate429: z.number().min(0).max(1).optional(),
  /** Retry-After seconds on injected and rate-limit 429s. @default 1 */
  retryAfterSeconds: z.number().int().nonnegative().optional(),
  /** Share (0–1) of /v1 requests answered 500. @default 0 */
  rate500: z.number().min(0).max(1).optional(),
  /** Share (0–1) of /v1 requests whose connection is dropped without an answer. @default 0 */
  dropRate: z.number().min(0).max(1).optional(),
  /** Requests per second allowed per key (token bucket); unset means unlimited. */
  rateLimitPerSecond: z.number().positive().optional(),
  /** Bucket size of the per-key rate limit. @default rateLimitPerSecond */
  rateLimitBurst: z.number().positive().optional(),
  /** Seed of the fault RNG, for reproducible runs. */
  seed: z.number().int().optional(),
});
export type FaultOptions = z.infer<typeof faultOptions>;

/**
 * Request metrics of the emulator, served on `GET /metrics` (src/metrics
 * implements it with prom-client; the emulator itself stays library-free).
 */
export interface EmulatorMetrics {
  /** After every answer: `endpoint` is the /v1 route's name, or healthcheck, admin, media, unmatched. Status 0: dropped unanswered. */
  observeRequest(endpoint: string, status: number, durationMs: number): void;
  text(): Promise<string>;
  readonly contentType: string;
}

export interface EmulatorOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (ephemeral) */
  port?: number;
  /** SQLite file path or ':memory:'. @default ':memory:' */
  db?: string;
  /** Keys, or the path of a JSON keys file. Without it a development key is generated. */
  keys?: KeysFile | string;
  /** Native seed data, or the path of a JSON seed file. */
  seed?: string | SeedFile;
  /** How long POST/poll ask waits for a terminal state before answering 202. @default 60000 */
  askWaitMs?: number;
  /** How long an ask run stays running. @default 1500 */
  askDelayMs?: number;
  faults?: FaultOptions;
  logger?: pino.Logger;
  /** Origin used in absolute URLs (media). @default the listening address */
  publicUrl?: string;
  /** Count requests and serve them on `GET /metrics`. */
  metrics?: EmulatorMetrics;
}

export function loadKeys(keys: KeysFile | string): KeysFile {
  const raw: unknown = typeof keys === 'string' ? JSON.parse(readFileSync(keys, 'utf8')) : keys;
  const parsed = keysFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid keys file${typeof keys === 'string' ? ` ${keys}` : ''}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`);
  }
  return parsed.data;
}

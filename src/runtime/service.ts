/**
 * The connection to the service: a client for a real base URL, or the
 * embedded emulator started in-process when `baseUrl: embedded`.
 */
import { makeFolder } from '../sdk/folders.js';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { ServiceClient } from '../api/client.js';
import type { ClientObserver, RequestGate } from '../api/client.js';
import type { LoadedConfig } from '../config/index.js';
import type { RunningEmulator } from '../emulator/index.js';
import { FerryError } from '../sdk/errors.js';
import { RequestControl } from '../sdk/transport/control/request-control.js';
import type { RateShare } from '../sdk/transport/control/rate-share.js';

export interface ServiceConnection {
  client: ServiceClient;
  /** The URL requests go to (the emulator's loopback URL when embedded). */
  baseUrl: string;
  embedded: boolean;
  close(): Promise<void>;
}

export async function openService(
  config: LoadedConfig,
  options: {
    logger?: Logger;
    observer?: ClientObserver;
    concurrency?: number;
    /** Retry through an outage for `service.outageBudgetSeconds` (runs do; interactive commands fail fast). */
    rideOutages?: boolean;
    /** Waited on before every request: the API key's shared budget (see rate-budget.ts); owned by the caller. */
    gate?: RequestGate;
    /** What processes sharing the API key learn together (the same budget, see rate-budget.ts); owned by the caller. */
    share?: RateShare;
  } = {},
): Promise<ServiceConnection> {
  const service = config.service;
  let emulator: RunningEmulator | undefined;
  let baseUrl = service.baseUrl;
  let apiKey = service.apiKey ?? '';
  if (baseUrl === 'embedded') {
    if (config.emulator.db !== ':memory:') makeFolder(dirname(config.emulator.db));
    // Imported only for `baseUrl: embedded`: runs against the real service never load the emulator.
    const { startEmulator } = await import('../emulator/index.js');
    emulator = await startEmulator({
      db: config.emulator.db,
      ...(config.emulator.seed ? { seed: config.emulator.seed } : {}),
      ...(options.logger ? { logger: options.logger.child({ component: 'emulator' }) } : {}),
    });
    baseUrl = emulator.url;
    apiKey = emulator.devKey ?? apiKey;
  } else if (!apiKey) {
    throw new FerryError('FERRY_CONFIG_INVALID', `service.apiKey is empty but baseUrl is ${baseUrl}`, {
      where: config.file,
      hint: 'set FERRY_API_KEY (or service.apiKey) to a key with the ingest and read scopes, or use baseUrl: embedded',
    });
  }
  const client = new ServiceClient({
    baseUrl,
    apiKey,
    concurrency: options.concurrency ?? service.concurrency,
    timeoutMs: service.timeoutMs,
    retry: { maxAttempts: service.maxAttempts, ...(options.rideOutages ? { outageBudgetMs: service.outageBudgetSeconds * 1000 } : {}) },
    ...(options.observer ? { observer: options.observer } : {}),
    // Every call without its own control (exports, setup, reads) is paced by what the service's answers teach; a
    // sync's pushes bring their own (its bounds may differ).
    control: new RequestControl({
      ...(service.concurrency === undefined ? {} : { concurrency: service.concurrency }),
      ...(service.maxRequestsPerSecond === undefined ? {} : { maxRequestsPerSecond: service.maxRequestsPerSecond }),
      ...(options.share && baseUrl === service.baseUrl ? { share: options.share } : {}),
    }),
    // The embedded emulator is this process's own: no budget to share with anyone.
    ...(options.gate && !emulator ? { gate: options.gate } : {}),
  });
  return {
    client,
    baseUrl,
    embedded: emulator !== undefined,
    async close() {
      await client.close();
      await emulator?.close();
    },
  };
}

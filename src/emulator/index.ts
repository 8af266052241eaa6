/**
 * The embedded emulator: a faithful local implementation of the service's
 * /v1 interface (spec/service-api.md), persisted in SQLite.
 *
 * ```ts
 * const emu = await startEmulator({ db: ':memory:' });
 * await fetch(`${emu.url}/v1/health`, { headers: { authorization: `Bearer ${emu.devKey}` } });
 * await emu.close();
 * ```
 */
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { App } from './app.js';
import { CATCH_UP_BATCH } from './store/search-index.js';
import { KeyRing } from './auth.js';
import { FaultInjector } from './faults.js';
import { createEmulatorServer } from './http/server.js';
import { faultOptions, loadKeys, type EmulatorOptions, type FaultOptions } from './options.js';
import { loadSeed, type SeedCounts } from './seed/load.js';
import { EmulatorStore } from './store/index.js';

export type { EmulatorMetrics, EmulatorOptions, FaultOptions, KeysFile, KeyEntry } from './options.js';
export type { SeedFile } from './seed/format.js';
export type { SeedCounts } from './seed/load.js';
export { EmulatorStore } from './store/index.js';
export { loadSeed, DEMO_SEED } from './seed/load.js';
export { generateSeed, summarizeSeed, DEFAULT_DATASETS_DIR, DEMO_OPTIONS, type GenerateSeedOptions, type SeedSummary } from './seed/generate.js';

export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:54321` (paths start with /v1). */
  url: string;
  port: number;
  /** The generated development key (all scopes), when no keys were given. */
  devKey?: string;
  /** The development organization of `devKey`. */
  orgId?: string;
  /** What the seed loaded at start (absent without a seed). */
  seeded?: SeedCounts;
  /** Direct access to the store, for seed generators and tests. */
  store: EmulatorStore;
  close(): Promise<void>;
  setFaults(f: FaultOptions): void;
}

export const DEFAULT_ASK_WAIT_MS = 60_000;
export const DEFAULT_ASK_DELAY_MS = 1_500;
const SEARCH_CATCH_UP_MS = 200;

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const store = new EmulatorStore(options.db ?? ':memory:');
  try {
    const keys = new KeyRing(options.keys === undefined ? undefined : loadKeys(options.keys), store.meta);
    const faults = new FaultInjector(faultOptions.parse(options.faults ?? {}));
    const app = new App(store, keys, faults, {
      askWaitMs: options.askWaitMs ?? DEFAULT_ASK_WAIT_MS,
      askDelayMs: options.askDelayMs ?? DEFAULT_ASK_DELAY_MS,
    }, logger);
    const seedDefaultOrg = keys.devOrgId ?? keys.orgIds()[0];
    let seeded: SeedCounts | undefined;
    const seed = () => {
      if (options.seed !== undefined) {
        seeded = loadSeed(store, options.seed, seedDefaultOrg);
        logger.info({ counts: seeded }, 'emulator seed loaded');
      }
    };
    seed();
    store.askRuns.purgeExpired();

    const server = createEmulatorServer(app, {
      reset: () => {
        store.reset();
        seed();
      },
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = options.publicUrl ?? `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
    app.baseUrl = url;
    logger.info({ url }, 'emulator listening');

    // The search index catches up with writes in the background, a batch at a time.
    const catchUp = setInterval(() => {
      try {
        store.search.catchUp(CATCH_UP_BATCH);
      } catch (error) {
        logger.error({ err: error }, 'emulator search index catch-up failed');
      }
    }, SEARCH_CATCH_UP_MS);
    catchUp.unref();

    let closed: Promise<void> | undefined;
    return {
      url,
      port: address.port,
      ...(keys.devKey !== undefined ? { devKey: keys.devKey } : {}),
      ...(keys.devOrgId !== undefined ? { orgId: keys.devOrgId } : {}),
      ...(seeded ? { seeded } : {}),
      store,
      setFaults: (f) => faults.set(faultOptions.parse(f)),
      close: () => {
        closed ??= new Promise<void>((resolve) => {
          clearInterval(catchUp);
          app.cancelSleeps();
          server.close(() => {
            store.close();
            resolve();
          });
          server.closeAllConnections();
        });
        return closed;
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

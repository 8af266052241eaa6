/**
 * `ferry emulator`: serve the local implementation of /v1 until SIGINT/SIGTERM.
 * `ferry emulator seed`: write a seed generated from the shared datasets.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { createLogger } from '../runtime/logger.js';
import { untilStopSignal } from '../runtime/stop-signals.js';
import type { RegisterCommand } from './main.js';
import { DEMO_OPTIONS, DEMO_SEED, generateSeed, startEmulator, summarizeSeed, type FaultOptions, type GenerateSeedOptions } from '../emulator/index.js';
import { uuid } from '../api/schemas/common.js';
import { FerryError } from '../sdk/errors.js';
import { codeOf } from '../sdk/guards.js';
import { printUnredacted } from './redacted-output.js';

interface EmulatorFlags {
  port: number;
  host: string;
  db: string;
  memory?: boolean;
  keys?: string;
  seed?: string;
  datasets?: string;
  askWaitMs?: number;
  askDelayMs?: number;
  latency?: number;
  jitter?: number;
  rate429?: number;
  retryAfter?: number;
  rate500?: number;
  dropRate?: number;
  rateLimit?: number;
  rateLimitBurst?: number;
  faultSeed?: number;
}

const number = (min: number, max = Number.POSITIVE_INFINITY) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(`expected a number between ${min} and ${max}`);
  return n;
};
const share = number(0, 1);
const count = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
};

interface SeedFlags {
  out?: string;
  datasets?: string;
  org?: string;
  limit?: number;
  deals?: number;
  messages?: number;
  rngSeed?: number;
  domain?: string;
}

function checkDatasets(dir: string): void {
  if (existsSync(dir)) return;
  throw new FerryError('FERRY_USAGE', `--datasets ${dir} does not exist`, {
    hint: 'point it at the folder holding crm-sales-opportunities/, harper-valley-calls/, qmsum/, enron-mbox/ and documents/',
  });
}

function registerSeed(emulator: Command): void {
  emulator
    .command('seed')
    .description('generate a seed JSON (deals, accounts, conversations, messages, documents) from the shared datasets')
    .option('--out <file>', 'write the seed here instead of stdout')
    .option('--datasets <dir>', 'datasets folder (default: <repo>/../shared/datasets)')
    .option('--org <uuid>', 'organization the seed belongs to (default: the emulator\'s default organization)')
    .option('--limit <n>', 'cap deals and messages at n each', count)
    .option('--deals <n>', 'deals to include, oldest first (default: all 8,800)', count)
    .option('--messages <n>', 'e-mails to include after de-duplication, newest first (default: all)', count)
    .option('--rng-seed <n>', 'seed of the generator\'s RNG; the same seed gives the same output', count)
    .option('--domain <domain>', 'e-mail domain of the organization\'s people')
    .action((_flags: SeedFlags, cmd: Command) => {
      // `ferry emulator` has a --datasets too, and commander gives a parent's options to the parent wherever they appear.
      const flags = cmd.optsWithGlobals<SeedFlags>();
      if (flags.org !== undefined && !uuid.safeParse(flags.org).success) {
        throw new FerryError('FERRY_USAGE', `--org takes an organization UUID, not "${flags.org}"`);
      }
      if (flags.datasets !== undefined) checkDatasets(flags.datasets);
      const options: GenerateSeedOptions = {};
      if (flags.datasets !== undefined) options.datasetsDir = flags.datasets;
      if (flags.org !== undefined) options.orgId = flags.org;
      if (flags.limit !== undefined) options.limit = flags.limit;
      if (flags.deals !== undefined) options.dealLimit = flags.deals;
      if (flags.messages !== undefined) options.messageLimit = flags.messages;
      if (flags.rngSeed !== undefined) options.seed = flags.rngSeed;
      if (flags.domain !== undefined) options.orgDomain = flags.domain;
      const seed = generateSeed(options);
      const json = `${JSON.stringify(seed, null, 1)}\n`;
      const counts = Object.entries(summarizeSeed(seed))
        .map(([kind, n]) => `${n} ${kind}`)
        .join(', ');
      if (flags.out === undefined) {
        // `ferry emulator seed | head` closes the pipe early; that is not an error.
        process.stdout.on('error', () => undefined);
        process.stdout.write(json);
        console.error(`generated ${counts}`);
      } else {
        writeFileSync(flags.out, json);
        console.log(`wrote ${flags.out}: ${counts}`);
      }
    });
}

export const register: RegisterCommand = (command) => {
  command
    .option('--port <port>', 'port to listen on', number(0, 65535), 8787)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--db <file>', 'SQLite database file', 'state/emulator.db')
    .option('--memory', 'keep everything in memory (nothing persists)')
    .option('--keys <file>', 'JSON keys file {"<key>": {orgId, scopes, revoked?}}; without it a dev key is generated')
    .option('--seed <file>', `JSON seed file with native deals, accounts, conversations, messages, documents; "${DEMO_SEED}" generates one from the shared datasets`)
    .option('--datasets <dir>', `datasets folder for --seed ${DEMO_SEED} (default: <repo>/../shared/datasets)`)
    .option('--ask-wait-ms <ms>', 'how long ask requests wait before answering 202', number(0))
    .option('--ask-delay-ms <ms>', 'how long an ask run stays running', number(0))
    .option('--latency <ms>', 'fault: added latency per /v1 request', number(0))
    .option('--jitter <ms>', 'fault: random extra latency up to this many ms', number(0))
    .option('--rate-429 <share>', 'fault: share (0-1) of /v1 requests answered 429', share)
    .option('--retry-after <seconds>', 'fault: Retry-After of 429 answers', number(0))
    .option('--rate-500 <share>', 'fault: share (0-1) of /v1 requests answered 500', share)
    .option('--drop-rate <share>', 'fault: share (0-1) of /v1 connections dropped without an answer', share)
    .option('--rate-limit <rps>', 'fault: requests per second allowed per key', number(0.001))
    .option('--rate-limit-burst <n>', 'fault: burst size of the per-key rate limit', number(1))
    .option('--fault-seed <n>', 'seed of the fault RNG (reproducible faults)', number(0))
    .action(async (flags: EmulatorFlags) => {
      const faults: FaultOptions = {};
      if (flags.latency !== undefined) faults.latencyMs = flags.latency;
      if (flags.jitter !== undefined) faults.jitterMs = flags.jitter;
      if (flags.rate429 !== undefined) faults.rate429 = flags.rate429;
      if (flags.retryAfter !== undefined) faults.retryAfterSeconds = Math.round(flags.retryAfter);
      if (flags.rate500 !== undefined) faults.rate500 = flags.rate500;
      if (flags.dropRate !== undefined) faults.dropRate = flags.dropRate;
      if (flags.rateLimit !== undefined) faults.rateLimitPerSecond = flags.rateLimit;
      if (flags.rateLimitBurst !== undefined) faults.rateLimitBurst = flags.rateLimitBurst;
      if (flags.faultSeed !== undefined) faults.seed = Math.round(flags.faultSeed);

      if (flags.datasets !== undefined) checkDatasets(flags.datasets);
      const seed =
        flags.seed === DEMO_SEED && flags.datasets !== undefined ? generateSeed({ ...DEMO_OPTIONS, datasetsDir: flags.datasets }) : flags.seed;
      // Loaded here, not at the top: prom-client would slow every other command's start.
      const { EmulatorRequestMetrics } = await import('../metrics/emulator.js');
      const emulator = await listening(flags, () =>
        startEmulator({
          host: flags.host,
          port: flags.port,
          db: flags.memory ? ':memory:' : flags.db,
          ...(flags.keys !== undefined ? { keys: flags.keys } : {}),
          ...(seed !== undefined ? { seed } : {}),
          ...(flags.askWaitMs !== undefined ? { askWaitMs: flags.askWaitMs } : {}),
          ...(flags.askDelayMs !== undefined ? { askDelayMs: flags.askDelayMs } : {}),
          faults,
          // The request log follows the global --log-level and --log-format.
          logger: createLogger({ level: 'info' }),
          metrics: new EmulatorRequestMetrics({ processMetrics: true }),
        }),
      );

      console.log(`ferry emulator listening on ${emulator.url} (${flags.memory ? 'in memory' : flags.db})`);
      if (emulator.devKey) {
        console.log(`development key (all scopes, org ${emulator.orgId ?? ''}):`);
        console.log(`  ${emulator.devKey}`);
        console.log('try:');
        // The key of the emulator just started is the user's own, not a secret to them: the line must paste.
        printUnredacted(`  curl -s -H "Authorization: Bearer ${emulator.devKey}" ${emulator.url}/v1/health`);
      }
      if (emulator.seeded) {
        console.log(`seeded: ${Object.entries(emulator.seeded).map(([kind, n]) => `${n} ${kind}`).join(', ')}`);
      }
      if (Object.keys(faults).length > 0) console.log(`faults: ${JSON.stringify(faults)}`);
      console.log(`metrics: ${emulator.url}/metrics`);

      await untilStopSignal();
      await emulator.close();
      console.log('ferry emulator stopped');
    });
  registerSeed(command);
};

/** Start the server, turning a port another process holds into an error that says so. */
async function listening<T>(flags: { host: string; port: number }, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (codeOf(error) !== 'EADDRINUSE') throw error;
    throw new FerryError('FERRY_USAGE', `port ${flags.port} on ${flags.host} is already in use`, {
      hint: 'another program (maybe another ferry emulator) listens there: stop it, or pick another port with --port <n> (--port 0 takes any free one)',
    });
  }
}

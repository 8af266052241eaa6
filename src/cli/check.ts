/**
 * `ferry check`: is this project ready to run? Validates the config and every
 * sync's connector options and mapping (every problem, not the first),
 * reaches every source, and asks the service which scopes the key has.
 */
import type { Command } from 'commander';
import type { ConfigIssue, LoadedConfig, LoadedExport } from '../config/index.js';
import { formatConfigIssues } from '../config/index.js';
import { inspectExport } from '../export/prepare.js';
import { redactUrl } from '../sdk/redact.js';
import { inspectSync } from '../pipeline/prepare.js';
import type { PreparedSync } from '../pipeline/prepare.js';
import { loadProject } from '../pipeline/project.js';
import { openService } from '../pipeline/service.js';
import { FerryError, isFerryError } from '../sdk/errors.js';
import { configFileOf, quietLogger } from './context.js';
import { mark, plural } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

export interface CheckItem {
  kind: 'config' | 'warning' | 'sync' | 'source' | 'export' | 'service' | 'scopes';
  name: string;
  ok: boolean;
  message: string;
  /** Exit code this item forces when it fails: 1 for configuration, 3 for reachability. */
  exitCode: 0 | 1 | 3;
  issues?: ConfigIssue[];
  code?: string;
}

/** Connectors that hang (a firewall dropping packets) must not hang `check`. */
const SOURCE_TIMEOUT_MS = 30_000;

/** What a key needs: syncs push (`ingest`) and read back (`read`); exports only read. */
export function requiredScopes(config: Pick<LoadedConfig, 'syncs' | 'exports'>): string[] {
  const scopes = new Set<string>();
  if (config.syncs.length > 0) {
    scopes.add('ingest');
    scopes.add('read');
  }
  if (config.exports.length > 0) scopes.add('read');
  return [...scopes].sort();
}

function failure(kind: CheckItem['kind'], name: string, error: unknown): CheckItem {
  const message = error instanceof Error ? error.message : String(error);
  const exitCode = isFerryError(error) ? (error.exitCode === 1 ? 1 : 3) : 3;
  return {
    kind,
    name,
    ok: false,
    message: isFerryError(error) && error.hint ? `${message} (hint: ${error.hint})` : message,
    exitCode,
    ...(isFerryError(error) ? { code: error.code } : {}),
  };
}

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, what: string): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new FerryError('FERRY_SOURCE_UNREACHABLE', `${what} gave no answer within ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function reachSource(prepared: PreparedSync): Promise<CheckItem> {
  const { sync, source, options } = prepared;
  const logger = quietLogger().child({ sync: sync.name, connector: source.name });
  try {
    const detail = await withTimeout(
      async (signal) => {
        const ctx = { options, baseDir: sync.baseDir, syncName: sync.name, logger, signal };
        if (source.check) {
          await source.check(ctx);
          return `${source.name} source reachable`;
        }
        const streams = await source.discover(ctx);
        return `${source.name} source reachable (${plural(streams.length, 'stream')})`;
      },
      SOURCE_TIMEOUT_MS,
      `source of sync "${sync.name}"`,
    );
    return { kind: 'source', name: sync.name, ok: true, message: detail, exitCode: 0 };
  } catch (error) {
    return failure('source', sync.name, error);
  }
}

/**
 * An export's destination: the connector loads, its options validate, and
 * its own `check()` (when it has one) can reach the target.
 */
async function checkExport(config: LoadedConfig, exp: LoadedExport): Promise<CheckItem> {
  let inspected: Awaited<ReturnType<typeof inspectExport>>;
  try {
    inspected = await inspectExport(config, exp);
  } catch (error) {
    return failure('export', exp.name, error);
  }
  const { prepared, issues } = inspected;
  if (!prepared) {
    return { kind: 'export', name: exp.name, ok: false, message: plural(issues.length, 'problem'), exitCode: 1, issues, code: 'FERRY_CONFIG_INVALID' };
  }
  const { destination, options } = prepared;
  try {
    if (destination.check) {
      const logger = quietLogger().child({ export: exp.name, connector: destination.name });
      await withTimeout(
        async (signal) => {
          await destination.check?.({ options, baseDir: exp.baseDir, syncName: exp.name, logger, signal });
        },
        SOURCE_TIMEOUT_MS,
        `destination of export "${exp.name}"`,
      );
    }
    return { kind: 'export', name: exp.name, ok: true, message: `${exp.resource} → ${destination.name}${destination.check ? ', destination reachable' : ''}`, exitCode: 0 };
  } catch (error) {
    return failure('export', exp.name, error);
  }
}

async function checkService(config: LoadedConfig): Promise<CheckItem[]> {
  const needed = requiredScopes(config);
  let service;
  try {
    service = await openService(config, { logger: quietLogger() });
  } catch (error) {
    return [failure('service', redactUrl(config.service.baseUrl), error)];
  }
  const where = service.embedded ? 'embedded emulator' : redactUrl(service.baseUrl);
  try {
    // One retry: enough for a blip, short enough that an unreachable service fails fast.
    const health = await service.client.health({ retry: { maxAttempts: 2 }, timeoutMs: 10_000 });
    const items: CheckItem[] = [
      { kind: 'service', name: where, ok: true, message: `health ${health.status}, organization ${health.org_id}`, exitCode: 0 },
    ];
    const missing = needed.filter((scope) => !health.scopes.includes(scope));
    items.push(
      missing.length === 0
        ? {
            kind: 'scopes',
            name: where,
            ok: true,
            message: needed.length === 0 ? `key scopes: ${health.scopes.join(', ') || '(none)'}` : `key has ${needed.join(', ')}`,
            exitCode: 0,
          }
        : {
            kind: 'scopes',
            name: where,
            ok: false,
            message: `key lacks ${missing.join(', ')} (has ${health.scopes.join(', ') || 'none'}; syncs need ingest and read, exports read)`,
            exitCode: 3,
            code: 'FERRY_SERVICE_AUTH',
          },
    );
    return items;
  } catch (error) {
    return [failure('service', where, error)];
  } finally {
    await service.close();
  }
}

/** Run every check; never throws for a problem it can report as an item. */
export async function runChecks(configFile: string): Promise<{ items: CheckItem[]; exitCode: 0 | 1 | 3 }> {
  let config: LoadedConfig;
  try {
    config = await loadProject(configFile);
  } catch (error) {
    if (!isFerryError(error, 'FERRY_CONFIG_INVALID')) throw error;
    const issues = Array.isArray(error.details.issues) ? (error.details.issues as ConfigIssue[]) : undefined;
    const item: CheckItem = { kind: 'config', name: configFile, ok: false, message: error.message, exitCode: 1, code: error.code };
    // The message may already list the issues; the list itself prints them with positions.
    if (issues && issues.length > 0) Object.assign(item, { issues, message: plural(issues.length, 'problem') });
    return { items: [item], exitCode: 1 };
  }
  const items: CheckItem[] = [
    {
      kind: 'config',
      name: configFile,
      ok: true,
      message: `${plural(config.syncs.length, 'sync')}, ${plural(config.exports.length, 'export')}`,
      exitCode: 0,
    },
    ...config.warnings.map((warning): CheckItem => ({ kind: 'warning', name: '', ok: true, message: warning, exitCode: 0 })),
  ];
  const ready: PreparedSync[] = [];
  for (const sync of config.syncs) {
    const { prepared, issues } = await inspectSync(config, sync);
    if (prepared) {
      ready.push(prepared);
      items.push({ kind: 'sync', name: sync.name, ok: true, message: `${sync.source.type} → ${sync.target.type}: options and mapping valid`, exitCode: 0 });
    } else {
      items.push({ kind: 'sync', name: sync.name, ok: false, message: plural(issues.length, 'problem'), exitCode: 1, issues, code: 'FERRY_CONFIG_INVALID' });
    }
  }
  // Sources are independent: reach them all at once.
  items.push(...(await Promise.all(ready.map(reachSource))));
  items.push(...(await Promise.all(config.exports.map((exp) => checkExport(config, exp)))));
  items.push(...(await checkService(config)));
  const codes = items.filter((i) => !i.ok).map((i) => i.exitCode);
  // A config problem means nothing could run; it outranks reachability.
  const exitCode = codes.includes(1) ? 1 : codes.includes(3) ? 3 : 0;
  return { items, exitCode };
}

function printItems(items: readonly CheckItem[]): void {
  const width = Math.max(...items.map((i) => i.kind.length));
  for (const item of items) {
    const symbol = item.kind === 'warning' ? '!' : mark(item.ok);
    const line = `${symbol} ${item.kind.padEnd(width)}  ${item.name === '' ? '' : `${item.name}: `}${item.message}`;
    if (item.ok) console.log(line);
    else console.error(line);
    if (item.issues && item.issues.length > 0) {
      console.error(formatConfigIssues(item.issues).replace(/^/gm, '    '));
    }
  }
}

export const register: RegisterCommand = (program, setExitCode) => {
  program
    .command('check')
    .description('validate the config, reach every source, call /v1/health and verify the key has the scopes the syncs need')
    .option('--json', 'print the results as JSON on stdout')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const { items, exitCode } = await runChecks(configFileOf(command));
      if (opts.json) {
        printJson({ ok: exitCode === 0, exitCode, items });
      } else {
        printItems(items);
        const failed = items.filter((i) => !i.ok).length;
        if (failed === 0) console.log('\nAll checks passed.');
        else console.error(`\n${plural(failed, 'check')} failed.`);
      }
      setExitCode(exitCode);
    });
};

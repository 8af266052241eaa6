/**
 * `ferry check` as a library: is this project ready to run? Everything a run
 * would refuse is found here first, so a scheduled run never fails on
 * something `check` passed: the config and every sync's connector options
 * and mapping (every problem, not the first; unknown JSONata functions too),
 * the state store, every source reached and its first records read (a
 * primaryKey or mapped column they lack is named), each row target's object type
 * planned against the service (the 50-field limit, field types that conflict
 * with the existing object type), exports' destinations, and the key's scopes.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { ConfigIssue, LoadedConfig, LoadedExport } from '../config/index.js';
import { redact } from '../sdk/redact.js';
import { inspectExport } from '../export/prepare.js';
import { FerryError, isFerryError } from '../sdk/errors.js';
import type { FieldType } from '../sdk/types.js';
import { ensureTarget } from '../sink/index.js';
import type { SinkService } from '../sink/index.js';
import { parseStateUrl } from '../state/index.js';
import { fieldHints } from '../pipeline/field-hints.js';
import { createLogger } from '../runtime/logger.js';
import { inspectSync } from '../pipeline/prepare.js';
import type { PreparedSync } from '../pipeline/prepare.js';
import { loadProject, openProjectState } from '../runtime/project.js';
import { openService } from '../runtime/service.js';
import { sampleSource } from './sample-check.js';

/** `1 sync`, `3 problems`: the counts in check messages. */
function plural(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

export interface CheckItem {
  kind: 'config' | 'warning' | 'sync' | 'state' | 'source' | 'target' | 'export' | 'service' | 'scopes';
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

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, what: string, timedOut?: () => Error): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(timedOut ? timedOut() : new FerryError('FERRY_SOURCE_UNREACHABLE', `${what} gave no answer within ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function reachSource(prepared: PreparedSync, quiet: Logger): Promise<CheckItem> {
  const { sync, source, options } = prepared;
  const logger = quiet.child({ sync: sync.name, connector: source.name });
  try {
    const detail = await withTimeout(
      async (signal) => {
        const ctx = { options, baseDir: sync.baseDir, syncName: sync.name, logger, signal };
        if (source.check) {
          const notes = await source.check(ctx);
          return `${source.name} source reachable${Array.isArray(notes) && notes.length > 0 ? `\n${notes.map((note) => `  note: ${note}`).join('\n')}` : ''}`;
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

/** The first records of a reachable source against the sync's primaryKey and mapped columns (sample-check.ts). */
async function checkSample(prepared: PreparedSync, quiet: Logger): Promise<CheckItem[]> {
  const { sync } = prepared;
  const logger = quiet.child({ sync: sync.name, connector: prepared.source.name });
  // The source answered already (reachSource): a first record slow to come (a large table's ordered query) is not a failure.
  const slow = new Error('slow');
  try {
    const result = await withTimeout((signal) => sampleSource(prepared, logger, signal), SOURCE_TIMEOUT_MS, `source of sync "${sync.name}"`, () => slow);
    if (!result) return [];
    return result.findings.map((finding): CheckItem =>
      finding.severity === 'error'
        ? { kind: 'source', name: sync.name, ok: false, message: finding.message, exitCode: 1, code: 'FERRY_CONFIG_INVALID' }
        : { kind: 'warning', name: sync.name, ok: true, message: finding.message, exitCode: 0 },
    );
  } catch (error) {
    if (error === slow) {
      return [{ kind: 'warning', name: sync.name, ok: true, message: `the source's first records took over ${SOURCE_TIMEOUT_MS / 1000} s; primaryKey and mapped columns were not checked against them`, exitCode: 0 }];
    }
    return [failure('source', sync.name, error)];
  }
}

/**
 * An export's destination: the connector loads, its options validate, and
 * its own `check()` (when it has one) can reach the target.
 */
async function checkExport(config: LoadedConfig, exp: LoadedExport, quiet: Logger): Promise<CheckItem> {
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
      const logger = quiet.child({ export: exp.name, connector: destination.name });
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

async function checkService(config: LoadedConfig, ready: readonly PreparedSync[], quiet: Logger): Promise<CheckItem[]> {
  const needed = requiredScopes(config);
  let service;
  try {
    service = await openService(config, { logger: quiet });
  } catch (error) {
    return [failure('service', redact(config.service.baseUrl), error)];
  }
  const where = service.embedded ? 'embedded emulator' : redact(service.baseUrl);
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
    for (const prepared of ready) {
      if (prepared.sync.target.type === 'row') items.push(await planTarget(prepared, service.client, quiet));
    }
    return items;
  } catch (error) {
    return [failure('service', where, error)];
  } finally {
    await service.close();
  }
}

/**
 * A row target's object type as a run would set it up, without writing: the
 * service's existing definitions merged with the mapped fields. Refuses what
 * the run would refuse (more than 50 fields, a declared type that differs
 * from the existing one) as a configuration error. Fields mapped by an
 * expression count with the type discover() suggests, or string.
 */
async function planTarget(prepared: PreparedSync, service: SinkService, quiet: Logger): Promise<CheckItem> {
  const { sync } = prepared;
  const inferred = new Map<string, FieldType>();
  const fields = sync.target.map.fields;
  if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
    const hints = await fieldHints(prepared, quiet);
    for (const name of Object.keys(fields)) inferred.set(name, hints.get(name) ?? 'string');
  }
  try {
    const planned = await ensureTarget(service, sync.target, { inferredFields: inferred, dryRun: true });
    const changes = planned.changes.map((c) => ('fields' in c ? `${c.kind} ${c.name} (${plural(c.fields.length, 'field')})` : `${c.kind} ${c.name}`));
    const total = planned.objectType?.fieldTypes.size;
    const shape = total === undefined ? '' : `, ${plural(total, 'field')} of 50`;
    return { kind: 'target', name: sync.name, ok: true, message: `${changes.length === 0 ? 'object type up to date' : changes.join(', ')}${shape}`, exitCode: 0 };
  } catch (error) {
    return failure('target', sync.name, error);
  }
}

/** The state store opens (or, for a SQLite file not made yet, its folder is writable). */
async function checkState(config: LoadedConfig): Promise<CheckItem> {
  const name = redact(config.state.url);
  try {
    const location = parseStateUrl(config.state.url);
    if (location.kind === 'sqlite' && !existsSync(location.path)) {
      // Creating the file here would hide a first run's "no state file yet" from the log.
      const folder = nearestExisting(dirname(location.path));
      if (!statSync(folder).isDirectory()) throw new FerryError('FERRY_STATE_ERROR', `${folder} is not a folder`);
      accessSync(folder, constants.W_OK);
      return { kind: 'state', name, ok: true, message: 'no state yet; the first run creates it', exitCode: 0 };
    }
    await (await openProjectState(config)).close();
    return { kind: 'state', name, ok: true, message: 'state store opens', exitCode: 0 };
  } catch (error) {
    const wrapped = isFerryError(error)
      ? error
      : new FerryError('FERRY_STATE_ERROR', `cannot open the state store: ${error instanceof Error ? error.message : String(error)}`, {
          hint: 'state.url must name a SQLite file in a folder ferry can create and write (e.g. sqlite:state/ferry.db, relative to ferry.yaml)',
        });
    return failure('state', name, wrapped);
  }
}

function nearestExisting(path: string): string {
  for (let dir = path; ; dir = dirname(dir)) {
    if (existsSync(dir) || dirname(dir) === dir) return dir;
  }
}

/** The syncs and exports `ferry check <name…>` names; every name must be one of them. */
function selectChecked(config: LoadedConfig, names: readonly string[]): Pick<LoadedConfig, 'syncs' | 'exports'> {
  if (names.length === 0) return config;
  const known = [...config.syncs.map((s) => s.name), ...config.exports.map((e) => e.name)];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new FerryError('FERRY_USAGE', `no sync or export named ${unknown.map((n) => `"${n}"`).join(', ')} in ${config.file}`, {
      hint: `known: ${known.join(', ') || '(none)'}`,
    });
  }
  return { syncs: config.syncs.filter((s) => names.includes(s.name)), exports: config.exports.filter((e) => names.includes(e.name)) };
}

export interface CheckOptions {
  /** Only these syncs and exports (default: all). */
  names?: readonly string[];
  /** Where connector and service calls log (default: warnings on stderr). */
  logger?: Logger;
}

/** Run every check; never throws for a problem it can report as an item (an unknown name is a usage error). */
export async function runChecks(configFile: string, options: CheckOptions = {}): Promise<{ items: CheckItem[]; exitCode: 0 | 1 | 3 }> {
  const quiet = options.logger ?? createLogger({ level: process.env.FERRY_LOG_LEVEL ?? 'warn' });
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
  const selected = selectChecked(config, options.names ?? []);
  const ready: PreparedSync[] = [];
  for (const sync of selected.syncs) {
    const { prepared, issues } = await inspectSync(config, sync);
    if (prepared) {
      ready.push(prepared);
      items.push({ kind: 'sync', name: sync.name, ok: true, message: `${sync.source.type} → ${sync.target.type}: options and mapping valid`, exitCode: 0 });
    } else {
      items.push({ kind: 'sync', name: sync.name, ok: false, message: plural(issues.length, 'problem'), exitCode: 1, issues, code: 'FERRY_CONFIG_INVALID' });
    }
  }
  // Sources are independent: reach them all at once.
  items.push(await checkState(config));
  const reached = await Promise.all(ready.map((prepared) => reachSource(prepared, quiet)));
  items.push(...reached);
  const sampled = await Promise.all(ready.filter((_, i) => reached[i]?.ok === true).map((prepared) => checkSample(prepared, quiet)));
  items.push(...sampled.flat());
  items.push(...(await Promise.all(selected.exports.map((exp) => checkExport(config, exp, quiet)))));
  items.push(...(await checkService({ ...config, ...selected }, ready, quiet)));
  const codes = items.filter((i) => !i.ok).map((i) => i.exitCode);
  // A config problem means nothing could run; it outranks reachability.
  const exitCode = codes.includes(1) ? 1 : codes.includes(3) ? 3 : 0;
  return { items, exitCode };
}


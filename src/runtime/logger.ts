/**
 * Logs: pino lines on stderr with run and sync ids. JSON for schedulers and
 * log shippers, or pretty (coloured on a terminal unless NO_COLOR is set) for
 * people. The API key can only reach a log line by mistake; the redaction
 * paths make sure it doesn't.
 */
import { createRequire } from 'node:module';
import type { DestinationStream, Logger } from 'pino';
import type pinoModule from 'pino';
import { FerryError, isFerryError } from '../sdk/errors.js';
import { REDACTED, redact } from '../sdk/redact.js';

export const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'password', '*.password', 'token', '*.token', 'secret', '*.secret',
];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export interface LogSettings {
  /** Wins over FERRY_LOG_LEVEL and over each caller's own default. */
  level?: string;
  format?: LogFormat;
}

let settings: LogSettings = {};

// pino and pino-pretty load on the first logger: `ferry --help` and the
// inspection commands that log nothing start faster without them.
const require = createRequire(import.meta.url);
type Pino = typeof pinoModule;

/** The CLI's `--log-level`, `--log-format` and `--quiet`, for every logger made after this call. */
export function configureLogs(next: LogSettings): void {
  if (next.level !== undefined) checkLevel(next.level, '--log-level');
  settings = { ...next };
}

function checkLevel(level: string, where: string): void {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new FerryError('FERRY_USAGE', `${where} takes one of ${LOG_LEVELS.join(', ')}, not "${level}"`);
  }
}

/**
 * The format of log lines: `--log-format`, then FERRY_LOG_FORMAT, then
 * pretty on a terminal and JSON anywhere else (a scheduler's log collector).
 */
export function logFormat(): LogFormat {
  const wanted = settings.format ?? process.env.FERRY_LOG_FORMAT;
  if (wanted === undefined || wanted === '') return process.stderr.isTTY ? 'pretty' : 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(wanted)) {
    throw new FerryError('FERRY_USAGE', `the log format must be ${LOG_FORMATS.join(' or ')}, not "${wanted}"`, {
      hint: 'check --log-format or FERRY_LOG_FORMAT',
    });
  }
  return wanted as LogFormat;
}

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColour(stream: { isTTY?: boolean } = process.stderr): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

/**
 * A logger on stderr (or `destination`). `level` is the caller's default;
 * `--log-level` beats it, and FERRY_LOG_LEVEL applies where the caller has none.
 */
export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = settings.level ?? options.level ?? process.env.FERRY_LOG_LEVEL ?? 'info';
  checkLevel(level, 'the log level');
  const pino = require('pino') as Pino;
  return pino(
    {
      level,
      base: { app: 'ferry' },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: { streamWrite: (line: string) => redact(line) },
    },
    options.destination ?? stderrDestination(pino),
  );
}

function stderrDestination(pino: Pino): DestinationStream {
  if (logFormat() === 'json') return pino.destination({ fd: 2, sync: true });
  // Loaded only when asked for: JSON logs (the scheduler case) never pay for it.
  const pretty = require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
  return pretty({ destination: 2, sync: true, colorize: useColour(), ignore: 'app', translateTime: 'SYS:HH:MM:ss.l' });
}

/** The machine-readable part of an error for a log line (never its details: they may hold records). */
export function errorFields(error: unknown): { code?: string; hint?: string; where?: string } {
  if (!isFerryError(error)) return {};
  return { code: error.code, ...(error.hint ? { hint: error.hint } : {}), ...(error.where ? { where: error.where } : {}) };
}

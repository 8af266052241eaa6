/**
 * Logs: pino JSON lines on stderr with run and sync ids. The API key can only
 * reach a log line by mistake; the redaction paths make sure it doesn't.
 */
import pino from 'pino';
import type { Logger } from 'pino';
import { REDACTED } from '../sdk/redact.js';

export const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'password', '*.password', 'token', '*.token', 'secret', '*.secret',
];

export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = options.level ?? process.env.FERRY_LOG_LEVEL ?? 'info';
  return pino(
    { level, base: { app: 'ferry' }, redact: { paths: REDACT_PATHS, censor: REDACTED }, timestamp: pino.stdTimeFunctions.isoTime },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

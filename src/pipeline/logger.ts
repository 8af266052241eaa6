/**
 * Logs: pino JSON lines on stderr with run and sync ids. A secret can only
 * reach a log line by mistake: the redaction paths hide credential-named
 * fields, and every finished line passes through the SDK's redactor, which
 * knows the secrets of the loaded config (API key, passwords, `${VAR}` values).
 */
import pino from 'pino';
import type { Logger } from 'pino';
import { REDACTED, redact } from '../sdk/redact.js';

export const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'password', '*.password', 'token', '*.token', 'secret', '*.secret',
];

export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = options.level ?? process.env.FERRY_LOG_LEVEL ?? 'info';
  return pino(
    {
      level,
      base: { app: 'ferry' },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: { streamWrite: (line) => redact(line) },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/**
 * Driver errors turned into FerryErrors a user can act on. Every message
 * names the sync and the database (URL with the password masked) and is
 * scrubbed of the password in case a driver echoed it.
 */
import { FerryError, codeOf, messageOf, redact, type ErrorCode } from '../../../src/sdk/index.js';

/** What a driver error means; drivers classify their own codes. */
export type FailureKind = 'unreachable' | 'auth' | 'missing' | 'timeout' | 'failed';

export interface ErrorScope {
  syncName: string;
  /** `postgres`, `mysql`, `sqlite`. */
  database: string;
  /** The URL or path, credentials masked. */
  target: string;
  /** Secrets to scrub from driver messages. */
  secrets: readonly (string | undefined)[];
  /** The table or query being read, for the message. */
  object?: string;
}

const CODE: Record<FailureKind, ErrorCode> = {
  unreachable: 'FERRY_SOURCE_UNREACHABLE',
  auth: 'FERRY_SOURCE_AUTH',
  missing: 'FERRY_SOURCE_OBJECT_MISSING',
  timeout: 'FERRY_SOURCE_READ_FAILED',
  failed: 'FERRY_SOURCE_READ_FAILED',
};

const HINT: Record<FailureKind, string> = {
  unreachable: 'check that the server is running and the host and port in url are right (and TLS settings, if any)',
  auth: 'check the user and password in url (or the environment variable it is interpolated from)',
  missing: 'check the table, schema and column names (ferry discover lists what the source has)',
  timeout: 'the statement ran longer than statementTimeoutMs; raise it or add an index on the cursor column',
  failed: 'see the database message above',
};

/** Network-level failures any driver reports through Node's error codes. */
export function isNetworkError(error: unknown): boolean {
  const code = codeOf(error);
  return (
    code !== undefined &&
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE'].includes(code)
  );
}

/** A FerryError of the given kind; `message` is the lead, the driver's (scrubbed) text follows. */
export function sqlError(kind: FailureKind, scope: ErrorScope, message: string, cause?: unknown): FerryError {
  const detail = cause === undefined ? '' : `: ${redact(messageOf(cause), scope.secrets)}`;
  const text = redact(`${message}${detail}`, scope.secrets);
  return new FerryError(CODE[kind], text, {
    where: `sync ${scope.syncName}`,
    hint: HINT[kind],
    // The cause is kept for logs, with its message scrubbed the same way.
    ...(cause === undefined ? {} : { cause: scrubbedCause(cause, scope) }),
    details: { database: scope.database, target: scope.target, ...(scope.object ? { object: scope.object } : {}) },
  });
}

function scrubbedCause(cause: unknown, scope: ErrorScope): Error {
  const error = new Error(redact(messageOf(cause), scope.secrets));
  const code = (cause as { code?: unknown } | null)?.code;
  if (code !== undefined) Object.assign(error, { code });
  return error;
}

/** The lead of a message for a failure of a given kind. */
export function describeFailure(kind: FailureKind, scope: ErrorScope): string {
  const on = scope.object ? ` reading ${scope.object}` : '';
  switch (kind) {
    case 'unreachable':
      return `cannot connect to ${scope.database} at ${scope.target}`;
    case 'auth':
      return `${scope.database} at ${scope.target} refused the credentials`;
    case 'missing':
      return `${scope.database} at ${scope.target}: object missing${on}`;
    case 'timeout':
      return `${scope.database} statement timed out${on}`;
    case 'failed':
      return `${scope.database} failed${on} (${scope.target})`;
  }
}

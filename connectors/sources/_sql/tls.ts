/**
 * `ssl:` options to the shape Node's TLS (and so pg and mysql2) expects; `ca`,
 * `cert` and `key` may be PEM text or a file path relative to the YAML file.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FerryError } from '../../../src/sdk/index.js';
import type { SslInput } from './options.js';

export interface TlsSettings {
  rejectUnauthorized?: boolean;
  ca?: string;
  cert?: string;
  key?: string;
}

function pem(value: string, baseDir: string, what: string): string {
  if (value.includes('-----BEGIN')) return value;
  const file = resolve(baseDir, value);
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new FerryError('FERRY_CONFIG_INVALID', `ssl.${what}: cannot read ${file}`, { cause, hint: `give PEM text or a readable file path` });
  }
}

/** undefined: no TLS settings given (a URL parameter such as sslmode may still ask for TLS). */
export function tlsSettings(ssl: SslInput, baseDir: string): TlsSettings | false | undefined {
  if (ssl === undefined) return undefined;
  if (ssl === false) return false;
  if (ssl === true) return {};
  return {
    ...(ssl.rejectUnauthorized !== undefined ? { rejectUnauthorized: ssl.rejectUnauthorized } : {}),
    ...(ssl.ca !== undefined ? { ca: pem(ssl.ca, baseDir, 'ca') } : {}),
    ...(ssl.cert !== undefined ? { cert: pem(ssl.cert, baseDir, 'cert') } : {}),
    ...(ssl.key !== undefined ? { key: pem(ssl.key, baseDir, 'key') } : {}),
  };
}

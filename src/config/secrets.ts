/**
 * Which configuration values are secrets, registered with the SDK's redactor
 * as the config is loaded so that no log line, error, preview or state write
 * shows them (docs/configuration.md, "Secrets").
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isSecretName, passwordOf, registerSecret } from '../sdk/redact.js';

/** `${VAR}` values shorter than this are not masked: they would blank out ordinary words. */
export const MIN_INTERPOLATED_LENGTH = 6;

const NUMBER_OR_BOOLEAN = /^(?:[+-]?\d+(?:\.\d+)?|true|false)$/i;
const URL_WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A value that came from the environment through `${VAR}`. A URL keeps its
 * scheme, host and path visible (only its password and credential parameters
 * are secret); numbers, booleans and the paths of existing files or folders
 * (relative to `baseDir`) are not secrets; anything else of at least
 * {@link MIN_INTERPOLATED_LENGTH} characters is masked wherever it appears.
 */
export function registerInterpolated(value: string, baseDir: string): void {
  if (NUMBER_OR_BOOLEAN.test(value) || value.length < MIN_INTERPOLATED_LENGTH) return;
  if (isExistingPath(value, baseDir)) return;
  if (URL_WITH_SCHEME.test(value) && URL.canParse(value)) {
    registerUrlCredentials(value);
    return;
  }
  registerSecret(value, MIN_INTERPOLATED_LENGTH);
}

/** Subtrees that hold mapping expressions and target names, never credentials. */
const NOT_SECRET_SUBTREES = new Set(['map', 'target']);

/**
 * Walk a loaded file's values: a string under a secret-looking key (`apiKey`,
 * `password`, `token`, `clientSecret`…) and the password inside any URL are
 * registered, whether written literally or interpolated.
 */
export function registerConfigSecrets(value: unknown, key?: string, depth = 0): void {
  if (depth > 50) return;
  if (typeof value === 'string') {
    if (URL_WITH_SCHEME.test(value)) registerUrlCredentials(value);
    else if (isSecretName(key)) registerSecret(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) registerConfigSecrets(item, undefined, depth + 1);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) {
      if (!NOT_SECRET_SUBTREES.has(name)) registerConfigSecrets(item, name, depth + 1);
    }
  }
}

function registerUrlCredentials(url: string): void {
  registerSecret(passwordOf(url));
  try {
    for (const [name, value] of new URL(url).searchParams) if (isSecretName(name)) registerSecret(value);
  } catch {
    // not a URL after all: nothing more to find
  }
}

/** A data folder or file named by a variable is not a secret, and masking it would hide every origin under it. */
function isExistingPath(value: string, baseDir: string): boolean {
  if (value.includes('\0') || value.includes('\n')) return false;
  try {
    return existsSync(resolve(baseDir, value));
  } catch {
    return false;
  }
}

/**
 * Where ferry itself is installed (internal: not exported from ferry/sdk;
 * here because every layer may import src/sdk). The same code runs from the sources
 * (src/…, through tsx in development and tests) and compiled (dist/src/…, as
 * published), so paths are found from this module rather than assumed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** True when running the compiled JavaScript (dist/), false when running the TypeScript sources. */
export const RUNS_COMPILED = import.meta.url.endsWith('.js');

/** The built-in connectors next to this tree: connectors/ beside src/ (or dist/connectors beside dist/src). */
export const BUILTIN_CONNECTORS_DIR = join(HERE, '..', '..', 'connectors');

let root: string | undefined;
let manifest: { name?: unknown; version?: unknown } | undefined;

/** The folder holding ferry's package.json: the checkout, or node_modules/ferry when installed. */
export function ferryRoot(): string {
  if (root === undefined) {
    for (let dir = HERE; ; dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'ferry') {
        root = dir;
        break;
      }
      if (dirname(dir) === dir) throw new Error(`ferry's package.json not found above ${HERE}`);
    }
  }
  return root;
}

/** The version in ferry's own package.json. */
export function ferryPackageVersion(): string {
  manifest ??= JSON.parse(readFileSync(join(ferryRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}

/**
 * A page of ferry's docs, which ship in the package: `docs/configuration.md`
 * in a checkout, `node_modules/ferry/docs/configuration.md` in a project that
 * installed ferry; relative to the current directory when below it, else
 * absolute (a global install), so a hint names a file that is there.
 */
export function docsPage(page: string): string {
  const file = join(ferryRoot(), 'docs', page);
  const shown = relative(process.cwd(), file);
  return shown.startsWith('..') || isAbsolute(shown) ? file : shown;
}

/**
 * A bench script compiled to plain JavaScript, for `node` to run without tsx.
 * Through tsx every closure a script makes is wrapped to keep its name, and
 * every module it loads goes through tsx's hooks thread: work a user's
 * `ferry run`, a hand-written client and a real service never do. Measured
 * on this machine (zero latency, 60k rows): the hand-written client sent
 * ~12 % more records a second compiled than through tsx, ferry ~5 % more, and
 * the stand-in used about a tenth less CPU a write.
 *
 * The script's own modules are bundled in; packages stay external, loaded
 * from node_modules as usual. `import.meta.dirname` keeps its meaning (the
 * entry's folder), so paths a script builds from it still point into the
 * repository; a module the script imports by a computed path (ferry's dist/)
 * must be imported by an absolute URL.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export interface CompiledScript {
  /** The compiled entry, for `node <file> ...args`. */
  readonly file: string;
  /** Removes the compiled file and its folder. */
  remove(): void;
}

/**
 * Under node_modules/.cache: packages are resolved from the compiled file's
 * folder up, so it must sit below the repository's node_modules.
 */
const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache');

/** Compiles `entry` (an absolute path to a .ts script) into a temporary folder. */
export async function compileScript(entry: string): Promise<CompiledScript> {
  mkdirSync(CACHE, { recursive: true });
  const dir = mkdtempSync(join(CACHE, 'ferry-bench-script-'));
  const file = join(dir, `${basename(entry, '.ts')}.mjs`);
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'error',
    define: { 'import.meta.dirname': JSON.stringify(dirname(entry)), 'import.meta.url': JSON.stringify(pathToFileURL(entry).href) },
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

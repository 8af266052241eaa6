#!/usr/bin/env node
// `npm run build`: compile src/ and connectors/ to dist/ (JavaScript and type
// declarations), then copy what tsc does not emit: the `ferry connector new`
// templates and the console's pages, which are shipped as they are.
//
// `--if-stale` builds only when a source is newer than the last build, so
// `npm start` and the test suite always run the current sources without
// paying for a build when nothing changed.
import { cpSync, existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist/.build-stamp');
const inputs = ['src', 'connectors', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** Newest modification time among the build's inputs. */
function newestInput(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestInput(join(path, entry)));
  return newest;
}

function isStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return inputs.some((input) => newestInput(join(root, input)) > built);
}

/**
 * `ferry emulator --seed demo` from an installed package, which has no
 * shared/datasets beside it: the demo seed, generated here from the datasets
 * beside the checkout, ships gzipped in dist/.
 */
async function writeDemoSeed() {
  const generate = await import(pathToFileURL(join(root, 'dist/src/emulator/seed/generate.js')).href);
  if (!existsSync(generate.DEFAULT_DATASETS_DIR)) {
    console.error(`note: ${generate.DEFAULT_DATASETS_DIR} not found; the package will have no demo seed (ferry emulator --seed demo then needs --datasets)`);
    return;
  }
  const seed = generate.generateSeed(generate.DEMO_OPTIONS);
  writeFileSync(generate.SHIPPED_DEMO_SEED, gzipSync(JSON.stringify(seed), { level: 9 }));
}

export async function build() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // A source saved while tsc runs must make the next --if-stale build again.
  const started = new Date();
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (compiled.status !== 0) throw new Error(`tsc failed (exit ${compiled.status}); dist/ is incomplete`);
  cpSync(join(root, 'src/cli/connector-templates'), join(root, 'dist/src/cli/connector-templates'), { recursive: true });
  // The console's pages are shipped as they are (plain modules, no bundler); uPlot is served from its package.
  cpSync(join(root, 'src/console/assets'), join(root, 'dist/src/console/assets'), { recursive: true });
  await writeDemoSeed();
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

/** Build when a source changed since the last build; true when it built. */
export async function buildIfStale() {
  if (!isStale()) return false;
  await build();
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // An installed package (what `npm pack` ships) has dist/ and no sources:
  // npm still runs `prepare` when a project links it (a connector scaffold's
  // node_modules/ferry), and there is nothing to build.
  if (!existsSync(join(root, 'src'))) process.exit(0);
  try {
    if (process.argv.includes('--if-stale')) await buildIfStale();
    else await build();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

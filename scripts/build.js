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
import { fileURLToPath } from 'node:url';

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

export function build() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // A source saved while tsc runs must make the next --if-stale build again.
  const started = new Date();
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (compiled.status !== 0) throw new Error(`tsc failed (exit ${compiled.status}); dist/ is incomplete`);
  cpSync(join(root, 'src/cli/connector-templates'), join(root, 'dist/src/cli/connector-templates'), { recursive: true });
  // The console's pages are shipped as they are (plain modules, no bundler); uPlot is served from its package.
  cpSync(join(root, 'src/console/assets'), join(root, 'dist/src/console/assets'), { recursive: true });
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

/** Build when a source changed since the last build; true when it built. */
export function buildIfStale() {
  if (!isStale()) return false;
  build();
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--if-stale')) buildIfStale();
    else build();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

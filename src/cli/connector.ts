/**
 * `ferry connector new <name>`: scaffold a connector package that passes its
 * own tests at once. Its node_modules links ferry (and the zod and vitest
 * ferry uses) to the running installation, which is what `npm link ferry`
 * would do, so nothing has to come from a registry.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { docsPage, ferryPackageVersion, ferryRoot } from '../sdk/ferry-package.js';
import { FerryError } from '../sdk/errors.js';
import { connectorNames, connectorScaffold, type ConnectorKind } from './connector-templates.js';
import type { RegisterCommand } from './main.js';

export interface NewConnectorOptions {
  /** @default ./<name without scope> */
  dir?: string;
  /** @default source */
  kind?: ConnectorKind;
  /** Link node_modules/{ferry,zod,vitest} to this ferry. @default true */
  link?: boolean;
  force?: boolean;
}

export interface NewConnectorResult {
  dir: string;
  packageName: string;
  connectorName: string;
  written: string[];
  /** node_modules entries created, as `name → target`. */
  linked: string[];
  /** Packages that could not be linked (not installed next to this ferry). */
  missing: string[];
}

/** The folder of an installed package seen from ferry's root (walking up node_modules). */
function installedPackage(name: string): string | undefined {
  for (let dir = resolve(ferryRoot()); ; dir = dirname(dir)) {
    const folder = join(dir, 'node_modules', name);
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(dir) === dir) return undefined;
  }
}

function link(target: string, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  // 'junction' makes directory links work on Windows without admin rights; POSIX ignores it.
  symlinkSync(target, path, 'junction');
}

/** Write a new connector package; refuses a non-empty folder unless `force`. */
export function newConnector(name: string, options: NewConnectorOptions = {}): NewConnectorResult {
  const names = connectorNames(name);
  const kind = options.kind ?? 'source';
  const dir = resolve(options.dir ?? names.folder);
  if (existsSync(dir) && readdirSync(dir).length > 0 && !options.force) {
    throw new FerryError('FERRY_USAGE', `${dir} exists and is not empty`, { hint: 'choose another --dir, or pass --force to write into it' });
  }
  const linkDeps = options.link !== false;
  const linkedFerry = linkDeps ? relative(dir, realpathSync(ferryRoot())).split(sep).join('/') : undefined;
  const files = connectorScaffold(names, kind, { ferryVersion: ferryPackageVersion(), linked: linkDeps, ...(linkedFerry === undefined ? {} : { linkedFerry }) });
  for (const file of files) {
    const target = join(dir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  const linked: string[] = [];
  const missing: string[] = [];
  if (linkDeps) {
    const wanted: [string, string | undefined][] = [
      ['ferry', resolve(ferryRoot())],
      ['zod', installedPackage('zod')],
      ['vitest', installedPackage('vitest')],
    ];
    for (const [dep, target] of wanted) {
      const path = join(dir, 'node_modules', dep);
      if (!target) {
        missing.push(dep);
        continue;
      }
      if (!existsSync(path)) link(target, path);
      linked.push(`node_modules/${dep} → ${target}`);
    }
    const vitest = installedPackage('vitest');
    const bin = join(dir, 'node_modules', '.bin', 'vitest');
    // `npm test` finds vitest on node_modules/.bin, as after an install.
    if (vitest && !existsSync(bin)) link(join('..', 'vitest', 'vitest.mjs'), bin);
  }
  return { dir, packageName: names.packageName, connectorName: names.connectorName, written: files.map((f) => f.path), linked, missing };
}

function parseKind(value: string): ConnectorKind {
  if (value !== 'source' && value !== 'destination') throw new InvalidArgumentError('must be source or destination');
  return value;
}

export const register: RegisterCommand = (connector) => {
  connector
    .command('new')
    .description('scaffold a connector package (example code, conformance tests, README) that passes its tests as is')
    .argument('<name>', 'npm package name, e.g. ferry-connector-tickets or @acme/tickets')
    .option('--dir <dir>', 'folder to create (default: ./<name>)')
    .option('--kind <kind>', 'source or destination', parseKind, 'source' as ConnectorKind)
    .option('--no-link', 'do not link node_modules/{ferry,zod,vitest} to this ferry (run npm install instead)')
    .option('--force', 'write into a folder that is not empty')
    .action((name: string, opts: { dir?: string; kind: ConnectorKind; link: boolean; force?: boolean }) => {
      const result = newConnector(name, {
        kind: opts.kind,
        link: opts.link,
        force: opts.force === true,
        ...(opts.dir !== undefined ? { dir: opts.dir } : {}),
      });
      const shown = relative(process.cwd(), result.dir) || '.';
      console.log(`Created the ${opts.kind} connector "${result.connectorName}" (package ${result.packageName}) in ${shown}:`);
      for (const path of result.written) console.log(`  ${path}`);
      for (const entry of result.linked) console.log(`  ${entry}`);
      if (result.missing.length > 0) console.log(`\nNot linked (not installed next to ferry): ${result.missing.join(', ')}; run npm install in ${shown}.`);
      console.log('\nNext steps:');
      console.log(`  cd ${shown} && npm test          # the conformance suite and the example's own tests`);
      console.log(`  in ferry.yaml:  type: ./${relative(process.cwd(), result.dir) || '.'}   (a path relative to ferry.yaml)`);
      console.log(`  ${docsPage('connector-authors.md')} explains the contract`);
    });
};

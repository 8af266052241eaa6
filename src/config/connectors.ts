/**
 * Resolve a `type:` to a connector definition: a built-in folder under
 * connectors/, a local path, or an npm package (also one listed under
 * `plugins:`). Every module is checked for a definition made with
 * defineSource/defineDestination against a compatible SDK major version.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type Semver from 'semver';
import { BUILTIN_CONNECTORS_DIR, RUNS_COMPILED, ferryPackageVersion, ferryRoot } from '../sdk/ferry-package.js';
import { FerryError } from '../sdk/errors.js';
import { isRecord, messageOf } from '../sdk/guards.js';
import { SDK_VERSION, type ConnectorDefinition } from '../sdk/types.js';

export interface LoadConnectorOptions {
  /** Directory of the YAML file that names the connector; local paths and packages resolve from it. */
  baseDir: string;
  /** The project's `plugins:` list (package names or local paths). */
  plugins?: string[];
  /** The role the connector must play; a mismatch is a configuration error. */
  kind?: 'source' | 'destination';
}

/** Built-in connectors are grouped by direction, so the tree tells sources from destinations. */
const BUILTIN_GROUPS = ['sources', 'destinations'].map((group) => join(BUILTIN_CONNECTORS_DIR, group));
const ENTRY_NAMES = ['index.ts', 'index.js', 'index.mjs'];

/** Loaded modules by entry file, so each is imported and checked once. */
const byEntry = new Map<string, Promise<ConnectorDefinition[]>>();
let builtins: Map<string, string> | undefined;

/** Built-in connector name → its folder: folders of connectors/sources and connectors/destinations holding an index file. */
function builtinFolders(): Map<string, string> {
  builtins ??= new Map(
    BUILTIN_GROUPS.flatMap((group) =>
      readdirSync(group, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && /^[a-z0-9]/.test(entry.name))
        .filter((entry) => ENTRY_NAMES.some((name) => existsSync(join(group, entry.name, name))))
        .map((entry): [string, string] => [entry.name, join(group, entry.name)]),
    ),
  );
  return builtins;
}

/** Names of the built-in connectors, sources and destinations alike. */
export function builtinConnectorNames(): string[] {
  return [...builtinFolders().keys()].sort();
}

function isLocalPath(type: string): boolean {
  return type.startsWith('./') || type.startsWith('../') || isAbsolute(type);
}

/** Resolve a connector `type:` (see the module comment) and return its definition. */
export async function loadConnector(type: string, options: LoadConnectorOptions): Promise<ConnectorDefinition> {
  const plugins = options.plugins ?? [];
  let candidates: ConnectorDefinition[] | undefined;
  if (isLocalPath(type)) {
    const entry = entryOfPath(resolve(options.baseDir, type));
    if (!entry) throw notFound(type, `nothing at ${resolve(options.baseDir, type)}`);
    candidates = await loadEntry(entry, type);
  } else if (builtinFolders().has(type)) {
    const entry = entryOfPath(builtinFolders().get(type)!);
    if (!entry) throw notFound(type, 'the built-in folder has no index file');
    candidates = await loadEntry(entry, type);
  } else {
    const entry = resolvePackage(type, options.baseDir);
    if (entry) candidates = await loadEntry(entry, type);
  }
  if (!candidates) {
    // A plugin may be listed by package name or path but used by its connector name.
    for (const plugin of plugins) {
      const entry = isLocalPath(plugin) ? entryOfPath(resolve(options.baseDir, plugin)) : resolvePackage(plugin, options.baseDir);
      if (!entry) throw notFound(plugin, `the plugin "${plugin}" listed under plugins: cannot be found`);
      const definitions = await loadEntry(entry, plugin);
      if (definitions.some((definition) => definition.name === type)) {
        candidates = definitions.filter((definition) => definition.name === type);
        break;
      }
    }
  }
  if (!candidates) throw notFound(type);
  return pick(type, candidates, options.kind);
}

function pick(type: string, candidates: ConnectorDefinition[], kind: 'source' | 'destination' | undefined): ConnectorDefinition {
  const match = kind === undefined ? candidates[0] : candidates.find((definition) => definition.kind === kind);
  if (match) return match;
  const found = candidates.map((definition) => definition.kind).join(' and ');
  throw new FerryError('FERRY_CONFIG_INVALID', `connector "${type}" is a ${found} connector and cannot be used as a ${kind ?? 'connector'}`, {
    hint: kind === 'destination' ? 'exports need a destination connector (defineDestination)' : 'syncs need a source connector (defineSource)',
  });
}

function notFound(type: string, reason?: string): FerryError {
  const names = builtinConnectorNames();
  const near = names.find((name) => editDistance(name, type) <= 2);
  const message =
    `no connector "${type}"${reason ? `: ${reason}` : ''}` +
    (near ? ` (did you mean "${near}"?)` : reason ? '' : ` (built-ins: ${names.join(', ')})`);
  return new FerryError('FERRY_CONNECTOR_NOT_FOUND', message, {
    hint:
      `built-in connectors are ${builtinConnectorNames().join(', ')}; ` +
      'a local connector is a path starting with ./ or ../ (a file, or a folder with package.json or index.ts/index.js); ' +
      'a plugin is an npm package installed next to ferry.yaml or listed under plugins:',
    details: { type, builtins: builtinConnectorNames() },
  });
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The importable entry file of a path: the file itself, or a folder's package entry or index. */
function entryOfPath(path: string): string | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return undefined;
  if (info.isFile()) return path;
  if (!info.isDirectory()) return undefined;
  const manifest = join(path, 'package.json');
  if (existsSync(manifest)) {
    const target = packageEntry(readManifest(manifest));
    if (target) {
      const entry = resolve(path, target);
      if (existsSync(entry)) return entry;
    }
  }
  return ENTRY_NAMES.map((name) => join(path, name)).find((candidate) => existsSync(candidate));
}

function readManifest(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new FerryError('FERRY_PLUGIN_INCOMPATIBLE', `${file} is not valid JSON`, { cause });
  }
}

/** `exports` (string, or the "." entry with import/default conditions), then `main`. */
function packageEntry(manifest: unknown): string | undefined {
  if (!isRecord(manifest)) return undefined;
  const fromExports = exportTarget(isRecord(manifest.exports) && '.' in manifest.exports ? manifest.exports['.'] : manifest.exports);
  if (fromExports) return fromExports;
  return typeof manifest.main === 'string' ? manifest.main : undefined;
}

function exportTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(exportTarget).find((target) => target !== undefined);
  if (!isRecord(value)) return undefined;
  for (const condition of ['import', 'node', 'default']) {
    const target = exportTarget(value[condition]);
    if (target) return target;
  }
  return undefined;
}

/**
 * An npm package's entry, looked up from baseDir and then from ferry's own
 * root. The package folder is found by walking node_modules upwards so ESM-only
 * packages (no "require" condition) resolve too; createRequire is the fallback
 * for anything unusual (workspaces, symlinks handled by Node).
 */
function resolvePackage(name: string, baseDir: string): string | undefined {
  if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name)) return undefined;
  for (const from of [baseDir, ferryRoot()]) {
    for (let dir = resolve(from); ; dir = dirname(dir)) {
      const folder = join(dir, 'node_modules', name);
      if (existsSync(join(folder, 'package.json'))) {
        const entry = entryOfPath(folder);
        if (entry) return entry;
      }
      if (dirname(dir) === dir) break;
    }
    try {
      return createRequire(join(from, 'noop.js')).resolve(name);
    } catch {
      // not resolvable from here; try the next root
    }
  }
  return undefined;
}

function isTypeScript(entry: string): boolean {
  return /\.[cm]?ts$/.test(entry) && !entry.endsWith('.d.ts');
}

let typeScriptSupport: Promise<void> | undefined;

/**
 * Compiled ferry runs plain JavaScript; a connector or plugin written in
 * TypeScript (a local `./my-source/index.ts`, a scaffold from `ferry connector
 * new`) is compiled on import by tsx, loaded only then so other runs never pay
 * for it. Running from the sources, tsx is already in place.
 */
function loadTypeScriptSupport(): Promise<void> {
  if (!RUNS_COMPILED) return Promise.resolve();
  typeScriptSupport ??= import('tsx/esm/api').then(
    (tsx) => {
      tsx.register();
    },
    (cause: unknown) => {
      typeScriptSupport = undefined;
      throw new FerryError('FERRY_PLUGIN_INCOMPATIBLE', 'a connector written in TypeScript needs the optional package tsx, which is not installed', {
        cause,
        hint: 'npm install tsx next to ferry, or compile the connector to JavaScript',
      });
    },
  );
  return typeScriptSupport;
}

function loadEntry(entry: string, type: string): Promise<ConnectorDefinition[]> {
  let loaded = byEntry.get(entry);
  if (!loaded) {
    loaded = importDefinitions(entry, type);
    byEntry.set(entry, loaded);
    // A failed load is not cached: the user may fix the file and retry in the same process.
    loaded.catch(() => byEntry.delete(entry));
  }
  return loaded;
}

/**
 * A plugin package may say which ferry releases it works with in
 * `peerDependencies.ferry`; refuse it before importing when this ferry is not
 * one of them. Ranges this check cannot read are let through: the SDK
 * version check after the import still applies.
 */
function checkPeerRange(entry: string, type: string): void {
  let manifestFile: string | undefined;
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      manifestFile = join(dir, 'package.json');
      break;
    }
    if (dirname(dir) === dir) return;
  }
  // Built-ins and anything else inside ferry's own package need no check.
  if (resolve(dirname(manifestFile)) === resolve(ferryRoot())) return;
  const manifest = readManifest(manifestFile);
  if (!isRecord(manifest) || !isRecord(manifest.peerDependencies)) return;
  const range = manifest.peerDependencies.ferry;
  if (typeof range !== 'string') return;
  const version = ferryPackageVersion();
  if (satisfiesPeerRange(version, range) !== false) return;
  const name = typeof manifest.name === 'string' ? manifest.name : dirname(manifestFile);
  throw new FerryError('FERRY_PLUGIN_INCOMPATIBLE', `connector "${type}" (${name}) needs ferry ${range}; this is ferry ${version}`, {
    hint: `install a release of ${name} made for ferry ${version}, or a ferry version matching ${range}`,
    details: { entry, manifest: manifestFile, found: range, supported: version },
  });
}

/**
 * Whether this ferry satisfies a plugin's `peerDependencies.ferry`, with npm's
 * rules (semver: hyphen ranges, prereleases only matched by a range naming the
 * same version's prerelease). `undefined` when the range is not a semver range
 * (a tag, a URL): a plugin is not refused over a range nobody can read.
 */
function satisfiesPeerRange(version: string, range: string): boolean | undefined {
  // Loaded at the first plugin checked: a run with the built-in connectors alone does not pay for it.
  const semver = createRequire(import.meta.url)('semver') as typeof Semver;
  if (semver.valid(version) === null || semver.validRange(range) === null) return undefined;
  return semver.satisfies(version, range);
}

async function importDefinitions(entry: string, type: string): Promise<ConnectorDefinition[]> {
  checkPeerRange(entry, type);
  let module: Record<string, unknown>;
  try {
    if (isTypeScript(entry)) await loadTypeScriptSupport();
    module = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  } catch (cause) {
    const message = messageOf(cause);
    throw new FerryError('FERRY_PLUGIN_INCOMPATIBLE', `connector "${type}" (${entry}) failed to load: ${message}`, {
      cause,
      hint: 'check that the module and its dependencies are installed and that it runs on this Node.js version',
    });
  }
  const exported = [unwrapDefault(module.default), module.source, module.destination].filter((value) => value !== undefined);
  const definitions: ConnectorDefinition[] = [];
  for (const value of exported) {
    const definition = checkDefinition(value, type, entry);
    if (definition && !definitions.includes(definition)) definitions.push(definition);
  }
  if (definitions.length === 0) {
    throw new FerryError('FERRY_PLUGIN_INCOMPATIBLE', `connector "${type}" (${entry}) exports no connector definition`, {
      hint: 'export default defineSource({...}) or defineDestination({...}) from ferry/sdk (or a named export `source` / `destination`)',
    });
  }
  return definitions;
}

/** A CommonJS plugin compiled from ESM has its default one level deeper. */
function unwrapDefault(value: unknown): unknown {
  return isRecord(value) && !('kind' in value) && 'default' in value ? value.default : value;
}

function checkDefinition(value: unknown, type: string, entry: string): ConnectorDefinition | undefined {
  if (!isRecord(value) || (value.kind !== 'source' && value.kind !== 'destination')) return undefined;
  const version = value.sdkVersion;
  const major = typeof version === 'number' ? Math.floor(version) : typeof version === 'string' ? Number.parseInt(version, 10) : Number.NaN;
  if (major !== SDK_VERSION) {
    throw new FerryError(
      'FERRY_PLUGIN_INCOMPATIBLE',
      `connector "${type}" was built for ferry SDK version ${String(version ?? 'unknown')}, this ferry supports SDK version ${SDK_VERSION}`,
      {
        hint: `rebuild the plugin against ferry/sdk ${SDK_VERSION}.x or install a ferry release that supports SDK ${String(version)}`,
        details: { entry, found: version ?? null, supported: SDK_VERSION },
      },
    );
  }
  const options = value.options;
  const hasSchema = typeof options === 'object' && options !== null && typeof (options as { safeParse?: unknown }).safeParse === 'function';
  const hasMethods = value.kind === 'source' ? typeof value.read === 'function' && typeof value.discover === 'function' : typeof value.open === 'function';
  if (typeof value.name !== 'string' || !hasSchema || !hasMethods) {
    throw new FerryError('FERRY_PLUGIN_INCOMPATIBLE', `connector "${type}" (${entry}) exports an incomplete ${value.kind} definition`, {
      hint: `a ${value.kind} needs name, a zod options schema and ${value.kind === 'source' ? 'discover() and read()' : 'open()'}`,
    });
  }
  // Shape checked just above; the members' signatures are the plugin's promise.
  return value as unknown as ConnectorDefinition;
}

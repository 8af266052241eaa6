/**
 * Loading a project: ferry.yaml and the files it includes, with environment
 * interpolation, relative paths made absolute, and every problem in every
 * file reported at once with its file, line and column.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { FerryError } from '../sdk/errors.js';
import { codeOf, messageOf } from '../sdk/guards.js';
import { docsPage } from '../sdk/ferry-package.js';
import { compactScalars } from './fast/compact-text.js';
import { expandInclude } from './include.js';
import type { Env } from './interpolate.js';
import { interpolateDocument } from './interpolate.js';
import type { ConfigIssue } from './issues.js';
import { displayFile, formatConfigIssues, formatPath, sortIssues } from './issues.js';
import { registerConfigSecrets } from './secrets.js';
import { resolveDbPath, resolvePluginSpecifier, resolveStateUrl } from './paths.js';
import { includedFile, projectFile } from './schema.js';
import type { ExportConfig, SyncConfig } from './schema.js';
import type { LoadedConfig, LoadedExport, LoadedSync, Located } from './types.js';
import { locatePath, parseYaml } from './yaml-source.js';
import type { KeyPath, YamlSource } from './yaml-source.js';
import { toConfigIssues } from './zod-issues.js';

export interface LoadConfigOptions {
  /** Variables for `${VAR}`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * `warn`: an unset `${VAR}` inside a sync or an export is a warning, and
   * the reference stays as written. For commands that read only the state
   * (`failures list`, `status`, `state show`): one sync's missing variable
   * must not keep them from another sync's state. Default `error`.
   */
  unsetInSyncs?: 'error' | 'warn';
}

/** One file, read, interpolated and converted to plain data. */
interface ReadFile {
  source: YamlSource;
  /** Undefined when the YAML did not parse. */
  value: unknown;
}

/**
 * Load and validate a project file and its includes.
 * @throws FerryError FERRY_CONFIG_INVALID listing every problem found.
 */
export async function loadConfig(file: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env: Env = options.env ?? process.env;
  const rootFile = path.resolve(file);
  const baseDir = path.dirname(rootFile);
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  const fileOrder = [rootFile];

  const text = await readConfigText(rootFile);
  const lenient = options.unsetInSyncs === 'warn' ? warnings : undefined;
  const root = readYaml(rootFile, text, env, issues, lenient);
  const rootValue = topLevelMapping(root, issues);
  const project = validate(projectFile, rootValue, root.source, issues);

  const syncs: { sync: SyncConfig; source: YamlSource; index: number }[] = [];
  const exports: { config: ExportConfig; source: YamlSource; index: number }[] = [];
  const names = { syncs: [] as NamedEntry[], exports: [] as NamedEntry[] };
  collectNames(rootValue, root.source, names);
  project?.syncs.forEach((sync, index) => syncs.push({ sync, source: root.source, index }));
  project?.exports.forEach((config, index) => exports.push({ config, source: root.source, index }));

  // Includes are followed even when the project file has other problems, so
  // one `ferry check` shows everything.
  const seen = new Set([rootFile]);
  const patterns = includePatterns(rootValue);
  for (const [i, pattern] of patterns) {
    const at = locatePath(root.source, ['include', i]);
    const expanded = await expandInclude(pattern, baseDir);
    if (expanded.kind === 'empty') {
      warnings.push(`${displayFile(rootFile)}:${at.line}:${at.column}  include[${i}]  "${pattern}" matched no files`);
      continue;
    }
    if (expanded.kind === 'missing') {
      issues.push({ ...at, path: `include[${i}]`, message: `included file not found: ${expanded.file}` });
      continue;
    }
    for (const includedPath of expanded.files) {
      if (seen.has(includedPath)) continue;
      seen.add(includedPath);
      fileOrder.push(includedPath);
      const includedText = await readFile(includedPath, 'utf8').catch((error: unknown) => {
        const reason = messageOf(error);
        issues.push({ ...at, path: `include[${i}]`, message: `cannot read included file ${includedPath}: ${reason}` });
        return undefined;
      });
      if (includedText === undefined) continue;
      const included = readYaml(includedPath, includedText, env, issues, lenient);
      const value = withoutNestedInclude(included, topLevelMapping(included, issues), issues);
      collectNames(value, included.source, names);
      const parsed = validate(includedFile, value, included.source, issues);
      parsed?.syncs.forEach((sync, index) => syncs.push({ sync, source: included.source, index }));
      parsed?.exports.forEach((config, index) => exports.push({ config, source: included.source, index }));
    }
  }

  // From the raw values, so a duplicate shows even in a file with other problems.
  issues.push(...duplicateNames('sync', names.syncs), ...duplicateNames('export', names.exports));

  if (issues.length > 0 || !project) throw configInvalid(rootFile, sortIssues(issues, fileOrder));

  return {
    file: rootFile,
    baseDir,
    service: project.service,
    state: { url: resolveStateUrl(project.state.url, baseDir), ...(project.state.schema ? { schema: project.state.schema } : {}) },
    emulator: {
      db: resolveDbPath(project.emulator.db, baseDir),
      ...(project.emulator.seed === undefined
        ? {}
        : // `demo` names the generated seed (src/emulator/seed/generate.ts), not a file.
          { seed: project.emulator.seed === 'demo' ? 'demo' : path.resolve(baseDir, project.emulator.seed) }),
    },
    metrics: project.metrics,
    notify: project.notify,
    plugins: project.plugins.map((plugin) => resolvePluginSpecifier(plugin, baseDir)),
    syncs: syncs.map(({ sync, source, index }): LoadedSync => ({ ...sync, ...located(source, ['syncs', index]) })),
    exports: exports.map(({ config, source, index }): LoadedExport => ({ ...config, ...located(source, ['exports', index]) })),
    warnings,
  };
}

async function readConfigText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') {
      throw new FerryError('FERRY_CONFIG_INVALID', `config file ${displayFile(file)} not found`, {
        where: file,
        hint: 'run `ferry init` to create a project here, or point -c at your ferry.yaml',
      });
    }
    throw new FerryError('FERRY_CONFIG_INVALID', `cannot read config file ${displayFile(file)}`, {
      where: file,
      cause: error,
      hint: code === 'EISDIR' ? 'pass the ferry.yaml file itself, not its directory' : 'check the file exists and is readable',
    });
  }
}

function readYaml(file: string, text: string, env: Env, issues: ConfigIssue[], lenient?: string[]): ReadFile {
  const { source, issues: syntax } = parseYaml(file, text);
  issues.push(...syntax);
  if (!source.document) return { source, value: undefined };
  const interpolation = interpolateDocument(source, env);
  for (const issue of interpolation) {
    if (lenient && /^(syncs|exports)\[/.test(issue.path) && / is not set /.test(issue.message)) {
      lenient.push(`${displayFile(file)}:${issue.line}:${issue.column}  ${issue.path}  ${issue.message}; left as written, as this command reads only the state`);
    } else issues.push(issue);
  }
  compactScalars(source.document);
  const value = source.document.toJS({ maxAliasCount: 100 }) as unknown;
  registerConfigSecrets(value);
  return { source, value };
}

/** The file's top level as a mapping; an empty file is an empty mapping. */
function topLevelMapping(read: ReadFile, issues: ConfigIssue[]): Record<string, unknown> | undefined {
  if (!read.source.document) return undefined;
  const value = read.value ?? {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  issues.push({
    ...locatePath(read.source, []),
    path: '',
    message: 'the file must be a mapping of keys (version:, service:, syncs: …)',
    expected: 'a mapping',
  });
  return undefined;
}

/** Includes do not nest; say so plainly rather than as an unknown key. */
function withoutNestedInclude(
  read: ReadFile,
  value: Record<string, unknown> | undefined,
  issues: ConfigIssue[],
): Record<string, unknown> | undefined {
  if (!value || !Object.hasOwn(value, 'include')) return value;
  issues.push({
    ...locatePath(read.source, ['include'], { atKey: true }),
    path: 'include',
    message: 'includes do not nest: list every file under include: in the project file',
  });
  const { include: _include, ...rest } = value;
  return rest;
}

function includePatterns(value: Record<string, unknown> | undefined): [number, string][] {
  const include = value?.include;
  if (!Array.isArray(include)) return [];
  return include.flatMap((entry: unknown, i): [number, string][] => (typeof entry === 'string' && entry !== '' ? [[i, entry]] : []));
}

function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: YamlSource,
  issues: ConfigIssue[],
): z.output<S> | undefined {
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  issues.push(
    ...toConfigIssues(result.error.issues, {
      schema,
      value,
      basePath: [],
      locate: (keyPath, atKey) => locatePath(source, keyPath, { atKey: atKey === true }),
    }),
  );
  return undefined;
}

interface NamedEntry {
  name: string;
  source: YamlSource;
  path: KeyPath;
}

function collectNames(
  value: Record<string, unknown> | undefined,
  source: YamlSource,
  into: { syncs: NamedEntry[]; exports: NamedEntry[] },
): void {
  for (const key of ['syncs', 'exports'] as const) {
    const list = value?.[key];
    if (!Array.isArray(list)) continue;
    list.forEach((entry: unknown, index) => {
      const name = typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined;
      if (typeof name === 'string') into[key].push({ name, source, path: [key, index] });
    });
  }
}

function duplicateNames(kind: 'sync' | 'export', entries: readonly NamedEntry[]): ConfigIssue[] {
  const first = new Map<string, { source: YamlSource; path: KeyPath }>();
  const issues: ConfigIssue[] = [];
  for (const entry of entries) {
    const earlier = first.get(entry.name);
    if (!earlier) {
      first.set(entry.name, entry);
      continue;
    }
    const was = locatePath(earlier.source, [...earlier.path, 'name']);
    issues.push({
      ...locatePath(entry.source, [...entry.path, 'name']),
      path: formatPath([...entry.path, 'name']),
      message: `duplicate ${kind} name "${entry.name}" (first declared at ${displayFile(was.file)}:${was.line}:${was.column})`,
    });
  }
  return issues;
}

function located(source: YamlSource, keyPath: (string | number)[]): Located {
  return {
    file: source.file,
    baseDir: path.dirname(source.file),
    keyPath,
    locate: (relative, options) => locatePath(source, [...keyPath, ...relative], options),
  };
}

function configInvalid(rootFile: string, issues: ConfigIssue[]): FerryError {
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new FerryError('FERRY_CONFIG_INVALID', `${count} in ${displayFile(rootFile)}:\n${indent(formatConfigIssues(issues))}`, {
    details: { issues },
    hint: `each line reads file:line:col  key path  problem; ${docsPage('configuration.md')} describes every key`,
  });
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

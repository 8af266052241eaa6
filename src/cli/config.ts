/**
 * `ferry config show [sync]`: the configuration as ferry resolved it —
 * includes merged, `${VAR}` resolved, defaults filled in, relative paths made
 * absolute — with every secret masked by the SDK's redactor.
 */
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { LoadedConfig, LoadedExport, LoadedSync } from '../config/index.js';
import { loadProject } from '../runtime/project.js';
import { FerryError } from '../sdk/errors.js';
import { REDACTED, isSecretName, redactValue } from '../sdk/redact.js';
import { configFileOf } from './context.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

/** A sync or export as written after resolving: its location in the files is left out. */
function plain({ file: _file, baseDir: _baseDir, keyPath: _keyPath, locate: _locate, ...rest }: LoadedSync | LoadedExport): Record<string, unknown> {
  return rest;
}

/** Values under secret-looking keys masked outright, then every registered secret and credential pattern (sdk/redact.ts). */
function masked(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return isSecretName(key) && value !== '' ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => masked(item));
  if (typeof value !== 'object' || value === null) return value;
  // Mapping expressions are not credentials, whatever their target field is called.
  if (key === 'map') return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, masked(item, name)]));
}

export function resolvedConfig(config: LoadedConfig, sync?: string): Record<string, unknown> {
  if (sync !== undefined) {
    const found = config.syncs.find((s) => s.name === sync) ?? config.exports.find((e) => e.name === sync);
    if (!found) {
      throw new FerryError('FERRY_USAGE', `no sync or export named "${sync}" in ${config.file}`, {
        hint: `known: ${[...config.syncs, ...config.exports].map((s) => s.name).join(', ') || '(none)'}`,
      });
    }
    return redactValue(masked(plain(found))) as Record<string, unknown>;
  }
  const whole = {
    file: config.file,
    service: config.service,
    state: config.state,
    emulator: config.emulator,
    metrics: config.metrics,
    plugins: config.plugins,
    syncs: config.syncs.map(plain),
    exports: config.exports.map(plain),
  };
  return redactValue(masked(whole)) as Record<string, unknown>;
}

export const register: RegisterCommand = (command) => {
  command
    .command('show')
    .description('print the resolved configuration: includes merged, ${VAR} resolved, defaults filled in, secrets masked')
    .argument('[sync]', 'only this sync or export')
    .option('--json', 'print it as JSON instead of YAML')
    .action(async (sync: string | undefined, opts: { json?: boolean }, sub: Command) => {
      const config = await loadProject(configFileOf(sub));
      const resolved = resolvedConfig(config, sync);
      if (opts.json) printJson(resolved);
      else process.stdout.write(stringify(resolved, { lineWidth: 0 }));
    });
};

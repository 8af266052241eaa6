/** `ferry discover <sync>`: what the sync's source offers, as the connector sees it. */
import type { Command } from 'commander';
import { loadConnector } from '../config/connectors.js';
import { formatConfigIssues, validateWith } from '../config/index.js';
import type { LoadedConfig, LoadedSync } from '../config/index.js';
import { connectorOptions, selectSyncs } from '../pipeline/prepare.js';
import { loadProject } from '../runtime/project.js';
import { FerryError } from '../sdk/errors.js';
import type { DiscoveredStream, SourceDefinition } from '../sdk/types.js';
import { configFileOf, quietLogger } from './context.js';
import { formatCount, formatTable } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

/** One stream as text: a heading, its keys, then a table of fields. */
export function formatStream(stream: DiscoveredStream): string {
  const lines = [`stream ${stream.name}${stream.estimatedCount === undefined ? '' : `  (~${formatCount(stream.estimatedCount)} records)`}`];
  lines.push(`  primary key:        ${stream.primaryKey?.length ? stream.primaryKey.join(', ') : '-'}`);
  lines.push(`  cursor candidates:  ${stream.cursorCandidates?.length ? stream.cursorCandidates.join(', ') : '-'}`);
  lines.push('');
  const keys = new Set(stream.primaryKey ?? []);
  const cursors = new Set(stream.cursorCandidates ?? []);
  const table = formatTable(
    [{ header: 'FIELD' }, { header: 'SOURCE TYPE' }, { header: 'TYPE' }, { header: 'NULLABLE' }, { header: 'ROLE' }],
    stream.fields.map((field) => [
      field.name,
      field.sourceType ?? '-',
      field.type,
      field.nullable === undefined ? '-' : field.nullable ? 'yes' : 'no',
      [keys.has(field.name) ? 'key' : '', cursors.has(field.name) ? 'cursor?' : ''].filter(Boolean).join(', '),
    ]),
  );
  lines.push(table.replace(/^/gm, '  '));
  return lines.join('\n');
}

/**
 * The connector and its parsed options, without compiling the mapping:
 * discover is how one writes a mapping, so a broken one must not block it.
 */
async function loadSource(config: LoadedConfig, sync: LoadedSync): Promise<{ source: SourceDefinition; options: unknown }> {
  const connector = await loadConnector(sync.source.type, { baseDir: sync.baseDir, plugins: config.plugins, kind: 'source' });
  if (connector.kind !== 'source') {
    throw new FerryError('FERRY_CONNECTOR_NOT_FOUND', `"${sync.source.type}" is a destination connector, not a source`, {
      where: `sync ${sync.name}`,
    });
  }
  const raw = connectorOptions(sync);
  const issues = validateWith(connector.options, raw, sync, ['source']);
  if (issues.length > 0) {
    throw new FerryError('FERRY_CONFIG_INVALID', `the source options of sync "${sync.name}" are invalid:\n${formatConfigIssues(issues)}`, {
      details: { issues },
    });
  }
  return { source: connector, options: connector.options.parse(raw) };
}

export const register: RegisterCommand = (command) => {
  command
    .argument('<sync>', 'sync whose source to inspect')
    .option('--json', 'print the streams as JSON on stdout')
    .action(async (name: string, opts: { json?: boolean }, command: Command) => {
      const config = await loadProject(configFileOf(command));
      const [sync] = selectSyncs(config, [name]);
      if (!sync) return;
      const { source, options } = await loadSource(config, sync);
      const streams = await source.discover({
        options,
        baseDir: sync.baseDir,
        syncName: sync.name,
        logger: quietLogger().child({ sync: sync.name, connector: source.name }),
        signal: new AbortController().signal,
      });
      if (opts.json) {
        printJson({ sync: sync.name, connector: source.name, streams });
        return;
      }
      console.log(`sync ${sync.name}: ${source.name} source, ${streams.length === 1 ? '1 stream' : `${streams.length} streams`}\n`);
      console.log(streams.map(formatStream).join('\n\n'));
    });
};

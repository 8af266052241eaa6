/**
 * What `ferry connector new` writes: the example package under
 * connector-templates/<kind>/ (real, type-checked and linted code that
 * imports `ferry/sdk` exactly as a plugin does), with the connector's name put
 * in, plus a package.json, README and .gitignore made here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FerryError } from '../sdk/errors.js';

export type ConnectorKind = 'source' | 'destination';

export interface ScaffoldFile {
  /** Relative to the package folder, with `/` separators. */
  path: string;
  content: string;
}

export interface ConnectorNames {
  /** The npm package name, as given (`ferry-connector-tickets`, `@acme/tickets`). */
  packageName: string;
  /** The connector's `name` (what `type:` may say when listed under `plugins:`). */
  connectorName: string;
  /** The default folder name. */
  folder: string;
}

const TEMPLATES = fileURLToPath(new URL('./connector-templates/', import.meta.url));
const PLACEHOLDER = /__CONNECTOR_NAME__/g;
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** Derive the connector and folder names from a package name, or refuse one npm would refuse. */
export function connectorNames(name: string): ConnectorNames {
  if (!PACKAGE_NAME.test(name) || name.length > 214) {
    throw new FerryError('FERRY_USAGE', `"${name}" is not a valid npm package name`, {
      hint: 'use lowercase letters, digits, - . _ (optionally @scope/name), e.g. ferry-connector-tickets',
    });
  }
  const folder = name.replace(/^@[^/]+\//, '');
  const connectorName = folder.replace(/^ferry-connector-/, '').replace(/\./g, '-') || folder;
  return { packageName: name, connectorName, folder };
}

function listTemplate(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

function packageJson(names: ConnectorNames, kind: ConnectorKind, ferryVersion: string, linkedFerry: string | undefined): string {
  const manifest = {
    name: names.packageName,
    version: '0.1.0',
    description: `A ferry ${kind} connector: ${names.connectorName}`,
    type: 'module',
    main: 'src/index.ts',
    exports: { '.': './src/index.ts' },
    keywords: ['ferry', 'ferry-connector', kind],
    scripts: { test: 'vitest run' },
    // ferry and zod come from the ferry that loads the plugin, so definitions
    // and schemas are the ones it checks; a copy of either would also work.
    peerDependencies: { ferry: `^${ferryVersion}`, zod: '^4.0.0' },
    devDependencies: { vitest: '^4.0.0' },
    // npm 11 asks which dependencies may run install scripts. ferry needs
    // none (it ships compiled); its `prepare` only builds a checkout, and npm
    // runs it on a linked node_modules/ferry, which it names by its path.
    allowScripts: { ferry: false, ...(linkedFerry === undefined ? {} : { [`file:${linkedFerry}`]: false }) },
    engines: { node: '>=20' },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function readme(names: ConnectorNames, kind: ConnectorKind, linked: boolean): string {
  const yaml =
    kind === 'source'
      ? `syncs:
  - name: tickets
    source:
      type: ./${names.folder}          # a path to this folder, relative to ferry.yaml
      path: ${names.folder}/test/fixtures/tickets.jsonl
    incremental: { cursor: updated_at }
    target:
      type: row
      source: { name: tickets }
      objectType: { name: ticket }
      map:
        id: $string(id)
        name: subject
        public: true
        fields: { status: status, priority: priority, updated: updated_at }`
      : `exports:
  - name: rows-to-files
    source: { resource: rows }
    destination:
      type: ./${names.folder}
      dir: out`;
  return `# ${names.packageName}

A [ferry](https://github.com/) ${kind} connector, made with \`ferry connector new\`.
\`src/index.ts\` is a complete, working example; change it into your own
${kind === 'source' ? 'source (an API, a database, a file format)' : 'destination'}.

## Use it

In \`ferry.yaml\`, point \`type:\` at this folder:

\`\`\`yaml
${yaml}
\`\`\`

or publish it and list the package under \`plugins:\`, then use the
connector's name:

\`\`\`yaml
plugins: [${names.packageName}]
# … type: ${names.connectorName}
\`\`\`

ferry checks \`peerDependencies.ferry\` in package.json when it loads the
plugin, and the SDK version the definition was built with.

## Test it

\`\`\`sh
npm test
\`\`\`

${
  kind === 'source'
    ? 'The test runs the SDK\'s conformance suite (`describeSourceConformance` from\n`ferry/sdk`): options, discover, origins, unique keys, incremental reads that\nrepeat nothing, sorted cursors and resuming after an abort; then tests of\nyour own.'
    : 'The test opens the destination, writes two batches and reads the files back.'
}

${
  linked
    ? '`node_modules/` links `ferry`, `zod` and `vitest` to the ferry that created\nthis folder, so tests run without installing anything. To use a registry\ninstead, delete `node_modules/` and run `npm install` (with ferry installed\nor linked: `npm link ferry`).'
    : 'Install the dependencies first: `npm install` (with ferry installed or\nlinked: `npm link ferry`).'
}

See docs/connector-authors.md in the ferry package (node_modules/ferry/docs/) for the whole contract.
`;
}

const GITIGNORE = 'node_modules/\ncoverage/\n*.log\n';

/** Every file of a new connector package. */
export function connectorScaffold(
  names: ConnectorNames,
  kind: ConnectorKind,
  options: { ferryVersion: string; linked: boolean; /** node_modules/ferry's target, relative to the package folder (with `/`). */ linkedFerry?: string },
): ScaffoldFile[] {
  const dir = join(TEMPLATES, kind);
  const files: ScaffoldFile[] = listTemplate(dir).map((path) => ({
    path: path === 'test/connector.test.ts' ? `test/${names.connectorName}.test.ts` : path,
    content: readFileSync(join(dir, path), 'utf8').replace(PLACEHOLDER, names.connectorName),
  }));
  files.push(
    { path: 'package.json', content: packageJson(names, kind, options.ferryVersion, options.linkedFerry) },
    { path: 'README.md', content: readme(names, kind, options.linked) },
    { path: '.gitignore', content: GITIGNORE },
  );
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
